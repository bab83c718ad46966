/**
 * The Mini App inside Telegram, at 390×844: a stub of `window.Telegram.WebApp` (injected
 * before the page's script, the only thing not real here) records what the page asks of
 * Telegram: ready and expand at start, the Main button for the PIN page's one action with its
 * progress, haptics on success and refusal, the Back button below a tab, a theme change
 * applied live. The PIN's six boxes take typed and pasted digits; an expired link and a
 * locked PIN are said in words, never as an HTTP code. Screenshots in both languages and
 * themes go to test-artifacts/webapp/.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  DARK_THEME,
  LIGHT_THEME,
  signWebAppInitData,
  webAppLaunchUrl,
} from "../../src/dev/telegram-emulator/index.js";
import { buildWebPage } from "../../web/build.js";
import { ARTIFACTS_DIR, launchBrowser, type MiniAppUser } from "../support/browser.js";
import { isPromptIn, sendAndWait } from "../support/flows.js";
import { ADMIN_ID, type Harness, PAYER_ID, startHarness } from "../support/harness.js";
import { acceptedPayout } from "../support/payouts.js";
import { telegramStub } from "../support/telegram-stub.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const PAYER: MiniAppUser = { id: PAYER_ID, firstName: "Paul", languageCode: "en" };
const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };

type Call = [string, ...unknown[]];

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-telegram-test-${process.pid}`));
  h = await startHarness({
    webAppDir,
    env: {
      STEP_UP_THRESHOLD_XAF: "100000",
      APPROVAL_THRESHOLD_XAF: "500000",
      WEBAPP_URL: "https://pay.example.test/app/",
    },
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(
  user: MiniAppUser,
  options: { query?: string; dark?: boolean; telegram?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    locale: user.languageCode === "fr" ? "fr-FR" : "en-GB",
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
  });
  context.setDefaultTimeout(10_000);
  if (options.telegram !== false) await context.addInitScript(telegramStub());
  const page = await context.newPage();
  const initData = signWebAppInitData(h.emulator.token, user, new Date());
  const url = `${h.app.http?.url}/app/${options.query ?? ""}`;
  await page.goto(webAppLaunchUrl(url, initData, options.dark ? DARK_THEME : LIGHT_THEME));
  return page;
}

const calls = (page: Page): Promise<Call[]> => page.evaluate("window.__tgCalls") as Promise<Call[]>;
const names = async (page: Page) => (await calls(page)).map((call) => call[0]);
const haptics = async (page: Page) =>
  (await calls(page))
    .filter((call) => call[0] === "HapticFeedback.notificationOccurred")
    .map((call) => call[1]);

/** A big /pay as `user`; the payout id its "Confirm with PIN" button opens. */
async function bigPayout(user: MiniAppUser, amount: number, to = "670000001"): Promise<string> {
  const chat = h.emulator.user({ id: user.id, firstName: user.firstName, languageCode: "en" });
  const prompt = await sendAndWait(h.emulator, chat, `/pay ${to} ${amount}`, isPromptIn(user.id));
  const button = (prompt.replyMarkup ?? []).flat().find((candidate) => candidate.web_app);
  const opened = new URL(button?.web_app?.url ?? "https://x.invalid/");
  return (opened.searchParams.get("step_up") ?? "").replace(/^confirm\./, "");
}

/** Types `pin` into the boxes under `label` as a thumb would, one digit at a time. */
async function typePin(page: Page, label: string, pin: string): Promise<void> {
  await page.getByLabel(label).focus();
  await page.keyboard.type(pin);
}

describe("the PIN page inside Telegram", () => {
  it("uses the Main button, its progress and haptics; six boxes take typed and pasted digits", async () => {
    const payoutId = await bigPayout(PAYER, 150_000);
    const page = await open(PAYER, { query: `?step_up=confirm.${payoutId}` });
    await page.getByRole("heading", { name: "Confirm this payout with your PIN" }).waitFor();
    expect(await names(page)).toEqual(expect.arrayContaining(["ready", "expand"]));
    // The header: who, how much, which network and number.
    expect(await page.getByTestId("step-up-amount").innerText()).toBe("150,000 FCFA");
    const head = await page.locator(".pay-head").innerText();
    expect(head).toContain("Jean-Paul Mbarga");
    expect(head).toContain("MTN MoMo");
    expect(head).toContain("+237 670 00 00 01");
    // Inside Telegram the page's action is the Main button: no button of its own.
    expect(await page.locator("form button").count()).toBe(0);
    expect(await calls(page)).toEqual(
      expect.arrayContaining([["MainButton.setText", "Set my PIN"], ["MainButton.show"]]),
    );
    const field = page.getByLabel("New PIN (6 digits)");
    expect(await field.getAttribute("inputmode")).toBe("numeric");
    expect(await field.getAttribute("autocomplete")).toBe("one-time-code");

    // Typed digit by digit (letters are dropped), then pasted whole.
    await typePin(page, "New PIN (6 digits)", "48a2916");
    expect(await field.inputValue()).toBe("482916");
    expect(await page.locator(".pin-boxes").first().locator(".pin-box.filled").count()).toBe(6);
    await page.getByLabel("The same PIN again").focus();
    await page.keyboard.insertText("482916");
    expect(await page.locator(".pin-boxes").nth(1).locator(".pin-box.filled").count()).toBe(6);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "tg-pin-set-en-light-390.png") });
    await page.evaluate("window.__tg.pressMain()");
    await page.getByText("Your PIN is set.").waitFor();
    expect(await haptics(page)).toEqual(["success"]);
    expect(await calls(page)).toContainEqual(["MainButton.setText", "Confirm"]);

    await typePin(page, "Your PIN (6 digits)", "000000");
    await page.evaluate("window.__tg.pressMain()");
    await page.getByText("Wrong PIN: 4 tries left before it locks.").waitFor();
    expect(await haptics(page)).toEqual(["success", "error"]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    expect(await page.getByLabel("Your PIN (6 digits)").inputValue()).toBe("");

    await typePin(page, "Your PIN (6 digits)", "482916");
    await page.evaluate("window.__tg.pressMain()");
    await page.locator("[data-state=done]").waitFor();
    expect(await page.locator("[data-state=done]").innerText()).toContain(
      "Done: the payment was sent.",
    );
    expect(await haptics(page)).toEqual(["success", "error", "success"]);
    const seen = await names(page);
    expect(seen).toEqual(
      expect.arrayContaining(["MainButton.showProgress", "MainButton.hideProgress"]),
    );
    expect(seen.at(-2)).toBe("MainButton.hide");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "tg-pin-done-en-light-390.png") });
    await page.context().close();
  });

  it("says a locked PIN's time in words, in French and dark", async () => {
    // The admin's PIN: this test locks it (the payer's is needed afterwards).
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await sendAndWait(h.emulator, admin, "/lang fr");
    onTestFinished(async () => {
      await sendAndWait(h.emulator, admin, "/lang en");
    });
    const payoutId = await bigPayout(ADMIN, 120_000, "690000022");
    const page = await open(
      { ...ADMIN, languageCode: "fr" },
      { query: `?step_up=confirm.${payoutId}`, dark: true },
    );
    await page
      .getByRole("heading", { name: "Confirmez ce paiement avec votre code PIN" })
      .waitFor();
    expect(await page.getByTestId("step-up-amount").innerText()).toBe("120\u202F000\u00A0FCFA");
    expect(await page.locator(".pay-head").innerText()).toContain("+237 690 00 00 22");
    await typePin(page, "Nouveau code PIN (6 chiffres)", "731904");
    await typePin(page, "Le même code PIN, encore une fois", "731904");
    await page.evaluate("window.__tg.pressMain()");
    await page.getByText("Votre code PIN est défini.").waitFor();
    await page.screenshot({ path: join(ARTIFACTS_DIR, "tg-pin-fr-dark-390.png") });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await page.getByTestId("pin").waitFor();
      await typePin(page, "Votre code PIN (6 chiffres)", "111111");
      const answered = page.waitForResponse((response) => response.request().method() === "POST");
      await page.evaluate("window.__tg.pressMain()");
      await answered;
    }
    const state = page.locator("[data-state=locked]");
    await state.waitFor();
    expect(await state.innerText()).toMatch(/bloqué jusqu’à \d{2}:\d{2}/);
    expect(await page.locator("body").innerText()).not.toMatch(/HTTP|\b4\d\d\b/);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "tg-pin-locked-fr-dark-390.png") });
    await page.context().close();
  });

  it("says an expired link in words, never an HTTP code", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    onTestFinished(async () => {
      await sendAndWait(h.emulator, admin, "/lang en");
    });
    for (const lang of ["en", "fr"] as const) {
      await sendAndWait(h.emulator, admin, `/lang ${lang}`);
      const page = await open(
        { ...ADMIN, languageCode: lang },
        { query: "?step_up=confirm.gone-payout-0001", dark: lang === "fr" },
      );
      const state = page.locator("[data-state=expired]");
      await state.waitFor();
      expect(await state.innerText()).toContain(
        lang === "en" ? "This link has expired" : "Ce lien a expiré",
      );
      expect(await page.locator("body").innerText()).not.toMatch(/HTTP|404/);
      expect(await haptics(page)).toEqual(["error"]);
      await page.context().close();
    }
  });
});

describe("the dashboard inside Telegram", () => {
  it("shows Back below a tab, one row of tabs with the count waiting, a theme change live", async () => {
    // Over the approval threshold too: confirmed with the PIN it waits for an approver.
    const payoutId = await bigPayout(PAYER, 600_000, "670000088");
    const pinPage = await open(PAYER, { query: `?step_up=confirm.${payoutId}` });
    await typePin(pinPage, "Your PIN (6 digits)", "482916");
    await pinPage.evaluate("window.__tg.pressMain()");
    await pinPage.locator("[data-state=done]").waitFor();
    await pinPage.context().close();

    const page = await open(ADMIN);
    await page.getByRole("tab", { name: /Overview/ }).waitFor();
    // One row of tabs, each at least 44 px tall, the selected one in the button colour.
    const boxes = await page
      .getByRole("tab")
      .evaluateAll((tabs) => tabs.map((tab) => tab.getBoundingClientRect().toJSON()));
    expect(new Set(boxes.map((box: { top: number }) => Math.round(box.top))).size).toBe(1);
    for (const box of boxes) expect((box as { height: number }).height).toBeGreaterThanOrEqual(44);
    await page.getByTestId("approvals-count").filter({ hasText: "1" }).waitFor();

    await page.getByRole("tab", { name: /History/ }).click();
    await page.locator("[data-testid=history-row]").first().click();
    await page.locator("[data-testid=payout-detail]").waitFor();
    expect(await page.getByRole("button", { name: /Back/ }).count()).toBe(0);
    expect(await names(page)).toContain("BackButton.show");
    await page.evaluate("window.__tg.pressBack()");
    await page.locator("[data-testid=history-row]").first().waitFor();
    expect((await names(page)).at(-1)).toBe("BackButton.hide");

    // Telegram switches to its dark theme: the page follows without reloading.
    expect(await page.locator("html").getAttribute("class")).not.toContain("dark");
    await page.evaluate(
      `window.Telegram.WebApp.themeParams = ${JSON.stringify(DARK_THEME)}; window.__tg.fire("themeChanged")`,
    );
    expect(await page.locator("html").getAttribute("class")).toContain("dark");
    const selected = await page.evaluate(
      "getComputedStyle(document.querySelector('[role=tab][aria-selected=true]')).backgroundColor",
    );
    expect(selected).toBe("rgb(135, 116, 225)");
    // The safe area at the bottom (34 px) is kept clear.
    const bottom = Number.parseFloat(
      String(await page.evaluate("getComputedStyle(document.getElementById('app')).paddingBottom")),
    );
    expect(bottom).toBeGreaterThanOrEqual(34);
    await page.context().close();
  });

  it("has the bot send the CSV export to the person's chat, audited as an export", async () => {
    const settled = Date.now() - 60_000;
    await h.app.stores.payouts.create(
      acceptedPayout(settled, {
        state: "success",
        phone: "237670000001",
        recipientName: "Jean-Paul Mbarga",
        initiatorId: PAYER_ID,
        chatId: PAYER_ID,
        paymentId: "pay-tg-csv-1",
        settledAtMs: settled,
      }),
    );
    // The admin has a chat with the bot (as whoever opens the Mini App from it has).
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await sendAndWait(h.emulator, admin, "/help");
    const page = await open(ADMIN);
    await page.getByRole("tab", { name: /History/ }).click();
    await page.locator("[data-testid=history-row]").first().waitFor();
    const document = h.emulator.waitForMessage(
      (message) => message.chatId === ADMIN_ID && message.document !== undefined,
    );
    await page.getByRole("button", { name: "Export CSV" }).click();
    const sent = await document;
    expect(sent.document?.fileName).toBe("payouts-filtered.csv");
    const text = sent.document?.bytes.toString("utf8").replace(/^\uFEFF/, "") ?? "";
    expect(text.split("\r\n")[0]).toMatch(/^created,kind,initiator,approver,/);
    expect(text).toContain("pay-tg-csv-1");
    await page.getByText("Sent payouts-filtered.csv to your chat with the bot.").waitFor();
    expect(await haptics(page)).toEqual(["success"]);
    const [entry] = await h.app.stores.audit.recent(1);
    expect(entry).toMatchObject({ action: "export", actorId: ADMIN_ID });
    expect(entry?.details).toMatchObject({ via: "mini_app" });
    await page.context().close();
  });

  it("still works in a plain browser, where Telegram's object is absent", async () => {
    const page = await open(ADMIN, { telegram: false });
    await page.getByRole("tab", { name: /History/ }).click();
    await page.locator("[data-testid=history-row]").first().click();
    await page.getByRole("button", { name: /Back/ }).click();
    await page.locator("[data-testid=history-row]").first().waitFor();
    await page.context().close();
  });
});

describe("every page at 390×844, in both languages and themes", () => {
  it("keeps a screenshot of each tab and nothing wider than the screen", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    onTestFinished(async () => {
      await sendAndWait(h.emulator, admin, "/lang en");
    });
    for (const lang of ["en", "fr"] as const) {
      await sendAndWait(h.emulator, admin, `/lang ${lang}`);
      for (const dark of [false, true]) {
        const page = await open({ ...ADMIN, languageCode: lang }, { dark });
        const tabs = page.getByRole("tab");
        await tabs.first().waitFor();
        for (let index = 0; index < (await tabs.count()); index += 1) {
          const tab = tabs.nth(index);
          await tab.click();
          const name = await tab.getAttribute("data-tab");
          // Loaded: the view's placeholder blocks are gone.
          await page.locator("#panel .placeholder").waitFor({ state: "detached" });
          const width = await page.evaluate("document.documentElement.scrollWidth");
          expect(width, `${name} ${lang}`).toBeLessThanOrEqual(390);
          const file = `tg-${name}-${lang}-${dark ? "dark" : "light"}-390.png`;
          await page.screenshot({ path: join(ARTIFACTS_DIR, file) });
        }
        await page.context().close();
      }
    }
  });
});

it("records the first render's time (reported, not asserted)", async () => {
  const page = await open(ADMIN, { telegram: false });
  await page.getByRole("tab", { name: /Overview/ }).waitFor();
  const paint = (await page.evaluate(
    "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1",
  )) as number;
  const tabs = (await page.evaluate("performance.now()")) as number;
  console.info(
    `first contentful paint ${Math.round(paint)} ms; tabs shown by ${Math.round(tabs)} ms`,
  );
  expect(paint).not.toBe(-1);
  await page.context().close();
});
