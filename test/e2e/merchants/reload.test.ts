/**
 * SIGHUP re-reads MERCHANTS_FILE without a restart (`app.reload()`, what the signal calls):
 * a rotated key loses no payout in flight, a merchant added starts, a merchant removed stops
 * (its data stays), and a bad file keeps the merchants as they were, saying why.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { isNewReplyIn, isPromptIn, isPromptReading, sendAndWait } from "../../support/flows.js";
import { testRedis } from "../../support/redis.js";
import {
  ADA,
  BEA,
  KEY_A2,
  KEY_C,
  type MerchantsHarness,
  merchantEntries,
  startMerchantsHarness,
  storesOf,
} from "./merchants-harness.js";

let h: MerchantsHarness;

beforeEach(async () => {
  h = await startMerchantsHarness({ sandbox: { settleDelayMs: 1500 } });
}, 60_000);

afterEach(async () => {
  await h?.close();
});

describe("MERCHANTS_FILE reload", () => {
  it("rotates a merchant's key while payouts are in flight and loses none", async () => {
    const ada = h.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
    // Two payouts pending at the API, and a third whose Confirm is pressed as the file reloads.
    for (const amount of [1100, 2200]) {
      const prompt = await sendAndWait(
        h.emulator,
        ada,
        `/pay 237670000001 ${amount}`,
        isPromptIn(ADA),
      );
      const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
      await ada.pressButton(prompt, 0);
      await pending;
    }
    const third = await sendAndWait(h.emulator, ada, "/pay 237670000001 3300", isPromptIn(ADA));
    const paid = h.emulator.waitForMessage(
      () => h.emulator.messages(ADA).filter((m) => plainText(m).includes("Paid")).length >= 3,
      20_000,
    );
    h.writeFile(merchantEntries(h.sandbox, { alpha: { paymentApiKey: KEY_A2 } }));
    const [, reloaded] = await Promise.all([ada.pressButton(third, 0), h.app.reload()]);
    expect(reloaded).toEqual({ outcome: "reloaded", added: [], removed: [], restarted: ["alpha"] });
    await paid;
    const { items } = await storesOf(h, "alpha").payouts.list({ userId: ADA, offset: 0, limit: 5 });
    expect(items.map((payout) => payout.state)).toEqual(["success", "success", "success"]);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(3);
    // The new runtime reads with the new key.
    const reads = h.sandbox.requests.filter((r) => r.path.startsWith("/payments/"));
    expect(reads.at(-1)?.apiKey).toBe(KEY_A2);
  });

  it("starts a merchant added to the file and stops one removed from it, whose data stays", async () => {
    const bea = h.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
    const prompt = await sendAndWait(h.emulator, bea, "/pay 237670000002 7777", isPromptIn(BEA));
    expect(plainText(prompt)).toContain("7,777");
    const [alpha] = merchantEntries(h.sandbox);
    h.writeFile([
      alpha,
      { ...alpha, id: "charlie", name: "Charlie", paymentApiKey: KEY_C, staff: "3001:admin" },
    ]);
    expect(await h.app.reload()).toEqual({
      outcome: "reloaded",
      added: ["charlie"],
      removed: ["bravo"],
      restarted: [],
    });
    expect([...h.app.runtimes.keys()]).toEqual(["alpha", "charlie"]);
    // Bravo's data stays in Redis; its callbacks' path is gone.
    const redis = testRedis();
    const bravoKeys = await redis.keys(`${keys(h.prefix).prefix}{m:bravo}:*`);
    await redis.quit();
    expect(bravoKeys.length).toBeGreaterThan(0);
    const callback = await fetch(`${h.app.http?.url}/webhooks/payments/bravo`, {
      method: "POST",
      body: "{}",
    });
    expect(callback.status).toBe(404);
    // Bea works for no merchant now.
    const refused = await sendAndWait(h.emulator, bea, "/pay 237670000002 100", isNewReplyIn(BEA));
    expect(refused.replyMarkup ?? []).toHaveLength(0);
    const carl = h.emulator.user({ id: 3001, firstName: "Carl", languageCode: "en" });
    const inCharlie = await sendAndWait(
      h.emulator,
      carl,
      "/pay 237670000001 900",
      isPromptIn(3001),
    );
    expect(plainText(inCharlie)).toContain("900");
  });

  it("keeps the merchants as they were when the new file is bad, and says why", async () => {
    const [alpha] = merchantEntries(h.sandbox);
    h.writeFile([alpha, { ...alpha, approvalThresholdXaf: "lots" }]);
    const refused = await h.app.reload();
    expect(refused.outcome).toBe("refused");
    if (refused.outcome === "refused") {
      expect(refused.problems).toEqual(
        expect.arrayContaining([
          'merchant "alpha" id: used twice; every merchant needs its own id',
        ]),
      );
    }
    expect([...h.app.runtimes.keys()]).toEqual(["alpha", "bravo"]);
    const bea = h.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
    const prompt = await sendAndWait(h.emulator, bea, "/pay 237670000002 500", isPromptIn(BEA));
    expect(plainText(prompt)).toContain("500");
  });
});
