/**
 * The Mini App of a bot serving two businesses (MERCHANTS_FILE), in a real browser: a person
 * who works for both sees which one the page shows, switches with the header's selector, and
 * sees the other's History; the chat keeps acting for the one it chose.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DARK_THEME } from "../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../src/model/payout.js";
import { buildWebPage } from "../../web/build.js";
import {
  BEA,
  type MerchantsHarness,
  MO,
  PAUL,
  startMerchantsHarness,
  storesOf,
} from "../e2e/merchants/merchants-harness.js";
import {
  ARTIFACTS_DIR,
  launchBrowser,
  type MiniAppUser,
  miniAppUrl,
  tmaHeader,
} from "../support/browser.js";
import { isPromptIn, isPromptReading, sendAndWait } from "../support/flows.js";

/** How each business's payout reads in a History row. */
const ALPHA_AMOUNT = "5,000 FCFA";
const BRAVO_AMOUNT = "7,777 FCFA";

let h: MerchantsHarness;
let browser: Browser;

/** `userId` pays `command` in the merchant they act for; the payout as stored. */
async function payFor(userId: number, command: string, merchant: string): Promise<Payout> {
  const user = h.emulator.user({ id: userId, firstName: `U${userId}`, languageCode: "en" });
  const prompt = await sendAndWait(h.emulator, user, command, isPromptIn(userId));
  const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 10_000);
  await user.pressButton(prompt, 0);
  await pending;
  const { items } = await storesOf(h, merchant).payouts.list({ userId, offset: 0, limit: 1 });
  if (!items[0]) throw new Error("no payout stored");
  return items[0];
}

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-merchants-web-${process.pid}`));
  h = await startMerchantsHarness({ webAppDir });
  browser = await launchBrowser();
  // Paul pays in Alpha (a payer sees his own payouts there), Bea in Bravo.
  await payFor(PAUL, "/pay 237670000001 5000", "alpha");
  await payFor(BEA, "/pay 237670000002 7777", "bravo");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe("the Mini App of a person who works for two businesses", () => {
  it("names the business in the header, and switches to the other's history", async () => {
    // Paul is a payer of Alpha (where the chat acts) and a viewer of Bravo.
    const paul: MiniAppUser = { id: PAUL, firstName: "Paul", languageCode: "en" };
    const context = await browser.newContext({ viewport: { width: 390, height: 780 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(miniAppUrl(h.app.http?.url ?? "", h.emulator.token, paul));
    const switcher = page.getByRole("combobox", { name: "Business" });
    await switcher.waitFor();
    expect(await switcher.inputValue()).toBe("alpha");
    expect(await page.getByTestId("who").innerText()).toContain("payer");

    await page.getByRole("tab", { name: "History" }).click();
    const rows = page.locator("[data-testid=history-row]");
    await rows.filter({ hasText: ALPHA_AMOUNT }).waitFor();
    expect(await rows.filter({ hasText: BRAVO_AMOUNT }).count()).toBe(0);

    await switcher.selectOption({ label: "Bravo & Sons" });
    // The page shows Bravo now: the role there, then its history only.
    await page.getByTestId("who").filter({ hasText: "viewer" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Business" }).inputValue()).toBe("bravo");
    await page.getByRole("tab", { name: "History" }).click();
    await rows.filter({ hasText: BRAVO_AMOUNT }).waitFor();
    expect(await rows.filter({ hasText: ALPHA_AMOUNT }).count()).toBe(0);
    await context.close();

    // The chat still acts for Alpha: the page's choice was the page's.
    const me = await fetch(`${h.app.http?.url}/app/api/me`, {
      headers: { authorization: tmaHeader(h.emulator.token, paul) },
    });
    expect(await me.json()).toMatchObject({ merchantId: "alpha", role: "payer" });
  });

  it("labels the switcher in French, and shows none to a person of one business", async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 720 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const mo: MiniAppUser = { id: MO, firstName: "Mo", languageCode: "fr" };
    await page.goto(miniAppUrl(h.app.http?.url ?? "", h.emulator.token, mo, { theme: DARK_THEME }));
    const switcher = page.getByRole("combobox", { name: "Entreprise" });
    await switcher.waitFor();
    expect(await switcher.locator("option").allInnerTexts()).toEqual([
      "Alpha Couriers",
      "Bravo & Sons",
    ]);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "merchant-switcher-fr-dark-360.png") });
    const bea: MiniAppUser = { id: BEA, firstName: "Bea", languageCode: "en" };
    // Launch parameters travel in the fragment: a page of its own, not a same-page goto.
    const beas = await context.newPage();
    await beas.goto(miniAppUrl(h.app.http?.url ?? "", h.emulator.token, bea));
    await beas.getByTestId("who").waitFor();
    expect(await beas.getByTestId("merchant").count()).toBe(0);
    await context.close();
  });
});
