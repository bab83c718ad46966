/**
 * The dashboard a person reads inside Telegram, at 390×844 in both languages and themes,
 * against real Redis: the Overview's today and last 30 days with each figure's change
 * against the 30 days before ("no earlier data" when there is none) and the failed volume;
 * History's search bar with its chips (status, operator, dates, kind), each removable, every
 * target at least 44 px; Export CSV through Telegram's `downloadFile` with a signed link
 * where the client has it, the bot's chat where it has not.
 * Telegram's object is the recording stub (test/support/telegram-stub.ts). Screenshots go to
 * test-artifacts/webapp/.
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
import type { Payout } from "../../src/model/payout.js";
import { buildWebPage } from "../../web/build.js";
import { ARTIFACTS_DIR, launchBrowser, type MiniAppUser } from "../support/browser.js";
import { sendAndWait } from "../support/flows.js";
import { ADMIN_ID, type Harness, PAYER_ID, startHarness } from "../support/harness.js";
import { acceptedPayout } from "../support/payouts.js";
import { telegramStub } from "../support/telegram-stub.js";

const DAY_MS = 86_400_000;
const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };
const PAYER: MiniAppUser = { id: PAYER_ID, firstName: "Paul", languageCode: "en" };

let h: Harness;
let browser: Browser;

/** A settled payout, `daysAgo` days back (its creation a minute before it settled). */
async function settled(daysAgo: number, overrides: Partial<Payout>): Promise<Payout> {
  const settledAtMs = Date.now() - daysAgo * DAY_MS - 60_000;
  const payout = acceptedPayout(settledAtMs - 60_000, {
    initiatorId: ADMIN_ID,
    chatId: ADMIN_ID,
    updatedAtMs: settledAtMs,
    settledAtMs,
    ...overrides,
  });
  await h.app.stores.payouts.create(payout);
  return payout;
}

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-dashboard-test-${process.pid}`));
  h = await startHarness({ webAppDir });
  browser = await launchBrowser();
  for (const [id, firstName] of [
    [ADMIN_ID, "Awa"],
    [PAYER_ID, "Paul"],
  ] as const) {
    await sendAndWait(h.emulator, h.emulator.user({ id, firstName, languageCode: "en" }), "/help");
  }
  // The last 30 days: 3 paid (one today), one failed; the 30 before: 2 paid, one failed.
  await settled(0, {
    state: "success",
    amount: 30_000,
    fee: 300,
    recipientName: "Jean-Paul Mbarga",
  });
  await settled(3, { state: "success", amount: 50_000, operator: "orange", phone: "237690000022" });
  await settled(9, { state: "success", amount: 20_000, recipientName: "Marie Ngo" });
  await settled(4, { state: "failed", amount: 15_000, recipientName: "Samuel Eto" });
  await settled(35, { state: "success", amount: 60_000 });
  await settled(40, { state: "success", amount: 20_000 });
  await settled(45, { state: "failed", amount: 5_000 });
  // The payer's own: one today, nothing in the 30 days before.
  await settled(0, { state: "success", amount: 4_000, initiatorId: PAYER_ID, chatId: PAYER_ID });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(
  user: MiniAppUser,
  options: { dark?: boolean; downloadFile?: boolean; telegram?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    locale: user.languageCode === "fr" ? "fr-FR" : "en-GB",
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    acceptDownloads: true,
  });
  context.setDefaultTimeout(10_000);
  if (options.telegram !== false) {
    await context.addInitScript(telegramStub({ downloadFile: options.downloadFile ?? false }));
  }
  const page = await context.newPage();
  const initData = signWebAppInitData(h.emulator.token, user, new Date());
  await page.goto(
    webAppLaunchUrl(`${h.app.http?.url}/app/`, initData, options.dark ? DARK_THEME : LIGHT_THEME),
  );
  return page;
}

/** Runs `check` in each language and theme, the admin's bot language set to match. */
async function inEachLookAndLanguage(
  check: (page: Page, lang: "en" | "fr", look: "light" | "dark") => Promise<void>,
): Promise<void> {
  const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
  onTestFinished(async () => {
    await sendAndWait(h.emulator, admin, "/lang en");
  });
  for (const lang of ["en", "fr"] as const) {
    await sendAndWait(h.emulator, admin, `/lang ${lang}`);
    for (const look of ["light", "dark"] as const) {
      const page = await open({ ...ADMIN, languageCode: lang }, { dark: look === "dark" });
      try {
        await check(page, lang, look);
        const width = await page.evaluate("document.documentElement.scrollWidth");
        expect(width, `${lang} ${look}`).toBeLessThanOrEqual(390);
      } finally {
        await page.context().close();
      }
    }
  }
}

describe("the Overview", () => {
  it("shows today, the last 30 days against the 30 before, and the failed volume", async () => {
    await inEachLookAndLanguage(async (page, lang, look) => {
      await page.getByTestId("today").waitFor();
      const today = await page.getByTestId("today").innerText();
      const paid = await page.getByTestId("paid").innerText();
      const counted = await page.getByTestId("count").innerText();
      const rate = await page.getByTestId("rate").innerText();
      const failed = await page.getByTestId("failed").innerText();
      if (lang === "en") {
        expect(today).toContain("34,000 FCFA");
        expect(today).toContain("2 payouts");
        // 104,000 against 80,000: +30%; 4 payouts against 2: +100%.
        expect(paid).toContain("104,000 FCFA");
        expect(paid).toContain("▲ +30%");
        expect(counted).toContain("▲ +100%");
        // 4 of 5 against 2 of 3: 80% against 66.7%, 13.3 points up.
        expect(rate).toContain("80%");
        expect(rate).toContain("+13.3 pts");
        expect(failed).toContain("15,000 FCFA");
        expect(failed).toContain("1 payout");
      } else {
        expect(today).toContain("34\u202F000\u00A0FCFA");
        expect(paid).toContain("+30\u202F%");
        expect(rate).toContain("+13,3\u00A0pts");
        expect(failed).toContain("Échoués");
        expect(failed).toContain("15\u202F000\u00A0FCFA");
      }
      await page.screenshot({ path: join(ARTIFACTS_DIR, `dash-overview-${lang}-${look}-390.png`) });
    });
  });

  it("says 'no earlier data' when nothing settled in the 30 days before, at 360 px too", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    onTestFinished(async () => {
      await sendAndWait(h.emulator, payer, "/lang en");
    });
    for (const lang of ["en", "fr"] as const) {
      await sendAndWait(h.emulator, payer, `/lang ${lang}`);
      const page = await open({ ...PAYER, languageCode: lang }, { dark: lang === "fr" });
      await page.setViewportSize({ width: 360, height: 844 });
      await page.getByTestId("today").waitFor();
      const none = lang === "en" ? "no earlier data" : "aucune donnée avant";
      expect(await page.getByTestId("paid").innerText()).toContain(none);
      expect(await page.getByTestId("count").innerText()).toContain(none);
      expect(await page.getByTestId("rate").innerText()).toContain(none);
      // Nothing is cut: each stat's text stays inside its box.
      const cut = await page
        .locator(".stat")
        .evaluateAll((stats) => stats.filter((stat) => stat.scrollWidth > stat.clientWidth).length);
      expect(cut).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS_DIR, `dash-overview-none-${lang}-360.png`) });
      await page.context().close();
    }
  });
});

/** The rows' recipient names, once the results hold exactly `expected` rows. */
async function rowNames(page: Page, expected: number): Promise<string[]> {
  const rows = page.locator("[data-testid=history-row] .row-main");
  await expect.poll(() => rows.count()).toBe(expected);
  return (await rows.allInnerTexts()).map((text) => text.split("\n")[0] ?? "");
}

describe("History's search bar", () => {
  it("filters with removable chips mapped onto the API's parameters, by day, in both looks", async () => {
    await inEachLookAndLanguage(async (page, lang, look) => {
      const en = lang === "en";
      await page.getByRole("tab", { name: en ? /History/ : /Historique/ }).click();
      await page.getByTestId("history-day").first().waitFor();
      // Every chip and the search button are at least 44 px tall and wide.
      const targets = page.locator(".chips button, .search-go");
      for (const box of await targets.evaluateAll((all) =>
        all.map((element) => element.getBoundingClientRect().toJSON()),
      )) {
        expect(box.height).toBeGreaterThanOrEqual(44);
        expect(box.width).toBeGreaterThanOrEqual(44);
      }
      const requests: string[] = [];
      page.on("request", (request) => {
        if (request.url().includes("/app/api/history?")) requests.push(request.url());
      });
      // Status: Failed (two of them in the 90 days History searches by default).
      await page.locator("[data-chip=status]").click();
      await page.getByRole("button", { name: en ? "Failed" : "Échec", exact: true }).click();
      expect(await rowNames(page, 2)).toContain("Samuel Eto");
      expect(requests.at(-1)).toContain("status=failed");
      // Removed: everything again; then Orange, then the last 7 days.
      await page.getByTestId("chip-status").locator(".chip-x").click();
      await page.locator("[data-chip=operator]").click();
      await page.getByRole("button", { name: "Orange", exact: true }).click();
      await page.getByTestId("chip-operator").waitFor();
      expect(requests.at(-1)).toContain("operator=orange");
      await page.locator("[data-chip=dates]").click();
      await page.getByRole("button", { name: en ? "7 days" : "7\u00a0jours", exact: true }).click();
      // The one Orange payout, three days ago.
      expect(await rowNames(page, 1)).toHaveLength(1);
      const url = new URL(requests.at(-1) ?? "http://x.invalid/");
      expect(url.searchParams.get("operator")).toBe("orange");
      expect(url.searchParams.get("from")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(url.searchParams.get("to")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(await page.getByTestId("chip-dates").innerText()).toContain(
        en ? "7 days" : "7\u00a0jours",
      );
      // The words box with the chips: "Marie" with no operator and no dates.
      await page.getByTestId("chip-operator").locator(".chip-x").click();
      await page.getByTestId("chip-dates").locator(".chip-x").click();
      await page.getByRole("searchbox").fill("Marie");
      await page.keyboard.press("Enter");
      expect(await rowNames(page, 1)).toEqual(["Marie Ngo"]);
      // An amount with its currency: the amount parameter, shown as a chip of its own.
      await page.getByRole("searchbox").fill(en ? "50,000 FCFA" : "50 000 FCFA");
      await page.keyboard.press("Enter");
      expect(await rowNames(page, 1)).toHaveLength(1);
      expect(requests.at(-1)).toContain("amount=50000");
      expect(requests.at(-1)).not.toContain("q=");
      expect(await page.getByTestId("chip-amount").innerText()).toContain(
        en ? "50,000 FCFA" : "50\u202F000\u00A0FCFA",
      );
      await page.getByTestId("chip-amount").locator(".chip-x").click();
      await expect.poll(() => page.getByTestId("history-day").count()).toBeGreaterThan(2);
      // The dates chip open, for the screenshot: its ranges and the custom days.
      await page.locator("[data-chip=status]").click();
      await page.getByRole("button", { name: en ? "Paid" : "Payé", exact: true }).click();
      await page.getByTestId("chip-status").waitFor();
      await page.locator("[data-chip=dates]").click();
      await page.locator(".custom-dates").waitFor();
      await page.screenshot({ path: join(ARTIFACTS_DIR, `dash-history-${lang}-${look}-390.png`) });
    });
  });
});

describe("Export CSV inside Telegram", () => {
  it("hands Telegram's downloadFile a signed link of the filtered CSV, in both languages", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    onTestFinished(async () => {
      await sendAndWait(h.emulator, admin, "/lang en");
    });
    for (const [lang, look] of [
      ["en", "light"],
      ["fr", "dark"],
    ] as const) {
      await sendAndWait(h.emulator, admin, `/lang ${lang}`);
      const page = await open(
        { ...ADMIN, languageCode: lang },
        { dark: look === "dark", downloadFile: true },
      );
      await page.getByRole("tab", { name: lang === "en" ? /History/ : /Historique/ }).click();
      await page.getByTestId("history-day").first().waitFor();
      await page.locator("[data-chip=status]").click();
      await page
        .getByRole("button", { name: lang === "en" ? "Failed" : "Échec", exact: true })
        .click();
      await page.getByTestId("chip-status").waitFor();
      const sentBefore = h.emulator.messages(ADMIN_ID).length;
      await page.locator("[data-action=export]").click();
      await page
        .getByText(
          lang === "en"
            ? "Telegram is downloading payouts-filtered.csv."
            : "Telegram télécharge payouts-filtered.csv.",
        )
        .waitFor();
      const calls = (await page.evaluate("window.__tgCalls")) as Array<[string, ...unknown[]]>;
      const download = calls.find((call) => call[0] === "downloadFile");
      const params = download?.[1] as { url: string; file_name: string };
      expect(params.file_name).toBe("payouts-filtered.csv");
      const url = new URL(params.url);
      expect(url.pathname).toBe("/app/file/history-csv");
      expect(url.searchParams.get("status")).toBe("failed");
      expect(url.searchParams.get("u")).toBe(String(ADMIN_ID));
      // What Telegram fetches: the failed payouts only, with no header at all.
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain("Samuel Eto");
      expect(text).not.toContain("Marie Ngo");
      // No document in the chat: Telegram downloaded it.
      expect(h.emulator.messages(ADMIN_ID).length).toBe(sentBefore);
      await page.screenshot({ path: join(ARTIFACTS_DIR, `dash-download-${lang}-${look}-390.png`) });
      await page.context().close();
    }
  });
});
