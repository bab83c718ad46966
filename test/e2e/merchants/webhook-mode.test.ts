/**
 * Telegram webhook mode with MERCHANTS_FILE: the front registers one webhook and hands each
 * update it receives to the merchant it is for.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, sendAndWait } from "../../support/flows.js";
import { freePort } from "../../support/net.js";
import { BEA, type MerchantsHarness, MO, startMerchantsHarness } from "./merchants-harness.js";

let h: MerchantsHarness;

beforeAll(async () => {
  const port = await freePort();
  h = await startMerchantsHarness({
    env: {
      HTTP_PORT: String(port),
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
      TELEGRAM_WEBHOOK_SECRET: "merchants-webhook-secret",
    },
  });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe("many merchants in Telegram webhook mode", () => {
  it("takes updates on one webhook and routes each to its merchant", async () => {
    expect(h.app.mode).toBe("webhook");
    expect(h.emulator.webhook.url).toBe(`${h.app.http?.url}/telegram`);
    const bea = h.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
    const inBravo = await sendAndWait(h.emulator, bea, "/pay 237670000002 7777", isPromptIn(BEA));
    expect(plainText(inBravo)).toContain("7,777");
    const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const inAlpha = await sendAndWait(h.emulator, mo, "/pay 237670000001 1000", isPromptIn(MO));
    expect(plainText(inAlpha)).toContain("Alpha Couriers");
  });
});
