/**
 * The step-up page in a real browser (Chromium through playwright-core), served by the
 * bot's own HTTP server: the payer opens a big payout's "Confirm with PIN" button as
 * Telegram would, sets a PIN (typed twice), types a wrong one, then the right one: one
 * POST to the sandbox. The French page, dark, at 360 px, is kept as a screenshot. A big
 * schedule's page shows its plan and next runs, and the right PIN makes it active.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DARK_THEME,
  LIGHT_THEME,
  plainText,
  signWebAppInitData,
  webAppLaunchUrl,
} from "../../src/dev/telegram-emulator/index.js";
import { buildWebPage } from "../../web/build.js";
import { ARTIFACTS_DIR, launchBrowser, type MiniAppUser } from "../support/browser.js";
import { isPromptIn, isPromptReading, promptRecord, sendAndWait } from "../support/flows.js";
import { ADMIN_ID, type Harness, PAYER_ID, startHarness } from "../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const PAYER: MiniAppUser = { id: PAYER_ID, firstName: "Paul", languageCode: "en" };

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-stepup-test-${process.pid}`));
  h = await startHarness({
    webAppDir,
    env: { STEP_UP_THRESHOLD_XAF: "100000", WEBAPP_URL: "https://pay.example.test/app/" },
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** A big /pay as the payer; the payout id its "Confirm with PIN" button opens. */
async function bigPayout(amount: number): Promise<string> {
  const payer = h.emulator.user({
    id: PAYER_ID,
    firstName: "Paul",
    languageCode: PAYER.languageCode ?? "en",
  });
  const prompt = await sendAndWait(
    h.emulator,
    payer,
    `/pay 670000001 ${amount}`,
    isPromptIn(PAYER_ID),
  );
  // The page reads the payout: its record is stored just after the prompt is sent.
  await promptRecord(h, prompt);
  const button = (prompt.replyMarkup ?? []).flat().find((candidate) => candidate.web_app);
  const opened = new URL(button?.web_app?.url ?? "https://x.invalid/");
  return (opened.searchParams.get("step_up") ?? "").replace(/^confirm\./, "");
}

/** The page as Telegram opens it from that button, on this server. */
async function open(
  user: MiniAppUser,
  payoutId: string,
  options: { width?: number; dark?: boolean; action?: string } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 390, height: 780 },
    deviceScaleFactor: 2,
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const initData = signWebAppInitData(h.emulator.token, user, new Date());
  const url = `${h.app.http?.url}/app/?step_up=${options.action ?? "confirm"}.${payoutId}`;
  await page.goto(webAppLaunchUrl(url, initData, options.dark ? DARK_THEME : LIGHT_THEME));
  return page;
}

describe("the step-up page", () => {
  it("sets the PIN, refuses a wrong one, and sends one POST after the right one", async () => {
    const payoutId = await bigPayout(150_000);
    const page = await open(PAYER, payoutId);
    await page.getByRole("heading", { name: "Confirm this payout with your PIN" }).waitFor();
    expect(await page.getByTestId("step-up-amount").innerText()).toBe("150,000 FCFA");
    expect(await page.getByTestId("step-up").innerText()).toContain("Jean-Paul Mbarga");

    await page.getByLabel("New PIN (6 digits)").fill("482916");
    await page.getByLabel("The same PIN again").fill("482916");
    await page.getByRole("button", { name: "Set my PIN" }).click();
    await page.getByText("Your PIN is set.").waitFor();

    await page.getByLabel("Your PIN (6 digits)").fill("000000");
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Wrong PIN: 4 tries left before it locks.").waitFor();
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    expect(await page.getByLabel("Your PIN (6 digits)").inputValue()).toBe("");

    await page.getByLabel("Your PIN (6 digits)").fill("482916");
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Done: the payment was sent.", { exact: false }).waitFor();
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    expect((await h.app.stores.payouts.get(payoutId))?.state).toMatch(/pending|success/);
    await page.context().close();
  });

  it("reads in French, dark, at 360 px (screenshot kept)", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await sendAndWait(h.emulator, payer, "/lang fr");
    const payoutId = await bigPayout(120_000);
    const page = await open({ ...PAYER, languageCode: "fr" }, payoutId, { width: 360, dark: true });
    await page
      .getByRole("heading", { name: "Confirmez ce paiement avec votre code PIN" })
      .waitFor();
    expect(await page.getByTestId("step-up-amount").innerText()).toBe("120\u202F000\u00A0FCFA");
    await page.getByLabel("Votre code PIN (6 chiffres)").waitFor();
    const overflow = await page.evaluate(
      "document.documentElement.scrollWidth > document.documentElement.clientWidth",
    );
    expect(overflow).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "step-up-fr-dark-360.png"), fullPage: true });
    await page.context().close();
  });

  it("shows a big schedule's plan and next runs, and makes it active after the right PIN", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const prompt = await sendAndWait(
      h.emulator,
      admin,
      "/schedule monthly 28 670000001 180000 payroll",
      isPromptIn(ADMIN_ID),
    );
    const button = (prompt.replyMarkup ?? []).flat().find((candidate) => candidate.web_app);
    const opened = new URL(button?.web_app?.url ?? "https://x.invalid/");
    const id = (opened.searchParams.get("step_up") ?? "").replace(/^schedule-confirm\./, "");
    const page = await open({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" }, id, {
      action: "schedule-confirm",
    });
    await page.getByRole("heading", { name: "Confirm this schedule with your PIN" }).waitFor();
    expect(await page.getByTestId("step-up-amount").innerText()).toBe("180,000 FCFA");
    const facts = await page.getByTestId("step-up").innerText();
    expect(facts).toContain("Jean-Paul Mbarga");
    expect(facts).toContain("payroll");
    // The same plan and runs as the chat prompt, in the same words.
    const plan = await page.getByTestId("step-up-plan").innerText();
    expect(plan.length).toBeGreaterThan(0);
    expect(plainText(prompt)).toContain(plan);
    const runs = await page.getByTestId("step-up-runs").locator("li").allInnerTexts();
    expect(runs).toHaveLength(3);
    for (const run of runs) expect(plainText(prompt)).toContain(run);

    await page.getByLabel("New PIN (6 digits)").fill("731904");
    await page.getByLabel("The same PIN again").fill("731904");
    await page.getByRole("button", { name: "Set my PIN" }).click();
    await page.getByText("Your PIN is set.").waitFor();
    await page.getByLabel("Your PIN (6 digits)").fill("000000");
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Wrong PIN: 4 tries left before it locks.").waitFor();
    expect((await h.app.stores.schedules.get(id))?.state).toBe("awaiting_confirmation");

    const edited = h.emulator.waitForMessage(isPromptReading(prompt, "Active"));
    await page.getByLabel("Your PIN (6 digits)").fill("731904");
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Done: the schedule is active.", { exact: false }).waitFor();
    await edited;
    expect((await h.app.stores.schedules.get(id))?.state).toBe("active");
    await page.context().close();
  });
});
