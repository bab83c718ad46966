/**
 * A "Confirm with PIN" button of one business's prompt opens the Mini App on that business,
 * whichever one the person's chat acts for since (MERCHANTS_FILE), in a real browser.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LIGHT_THEME,
  signWebAppInitData,
  webAppLaunchUrl,
} from "../../src/dev/telegram-emulator/index.js";
import { buildWebPage } from "../../web/build.js";
import {
  type MerchantsHarness,
  MO,
  startMerchantsHarness,
  storesOf,
} from "../e2e/merchants/merchants-harness.js";
import { launchBrowser, type MiniAppUser } from "../support/browser.js";
import { isNewReplyWith, isPromptIn, isPromptReading, sendAndWait } from "../support/flows.js";
import { waitUntil } from "../support/processes.js";

let h: MerchantsHarness;
let browser: Browser;

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-merchants-pin-${process.pid}`));
  h = await startMerchantsHarness({
    webAppDir,
    extra: { bravo: { stepUpThresholdXaf: 100_000 } },
    env: { WEBAPP_URL: "https://pay.example.test/app/" },
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** Mo's chat acts for merchant `index` of his /merchant list (0: Alpha, 1: Bravo). */
async function switchTo(index: number, name: string): Promise<void> {
  const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
  const list = await sendAndWait(h.emulator, mo, "/merchant", isNewReplyWith(MO, "Choose"));
  const switched = h.emulator.waitForMessage(isPromptReading(list, `act for ${name}`), 10_000);
  await mo.pressButton(list, index);
  await switched;
}

describe("a PIN button of one business, opened while the chat acts for another", () => {
  it("opens the Mini App on the business whose prompt it is on", async () => {
    // Mo is admin of Alpha and payer of Bravo; Bravo asks for the PIN from 100,000.
    await switchTo(1, "Bravo");
    const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const prompt = await sendAndWait(h.emulator, mo, "/pay 237670000001 150000", isPromptIn(MO));
    const button = (prompt.replyMarkup ?? []).flat().find((candidate) => candidate.web_app);
    const opened = new URL(button?.web_app?.url ?? "https://x.invalid/");
    expect(opened.searchParams.get("m")).toBe("bravo");
    const payoutId = (opened.searchParams.get("step_up") ?? "").replace(/^confirm\./, "");
    await waitUntil(
      async () => (await storesOf(h, "bravo").payouts.get(payoutId)) !== null,
      "the prompt's record",
    );
    await switchTo(0, "Alpha");

    const user: MiniAppUser = { id: MO, firstName: "Mo", languageCode: "en" };
    const context = await browser.newContext({ viewport: { width: 390, height: 780 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const url = `${h.app.http?.url}/app/${opened.search}`;
    const initData = signWebAppInitData(h.emulator.token, user, new Date());
    await page.goto(webAppLaunchUrl(url, initData, LIGHT_THEME));
    await page.getByRole("heading", { name: "Confirm this payout with your PIN" }).waitFor();
    expect(await page.getByTestId("step-up-amount").innerText()).toBe("150,000 FCFA");
    await context.close();
  });
});
