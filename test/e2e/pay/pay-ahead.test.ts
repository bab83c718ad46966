/**
 * `/pay NUMBER AMOUNT` from someone who could pay at their last /pay reads its duplicate
 * rule, caps and the name look-up's rate-limit slot with the access step's own reads
 * (features/shared/pay-ahead.ts). What must hold whatever the path: one slot and one look-up
 * per prompt, the duplicate warning as before, a stranger's /pay takes no slot, and a payer
 * demoted since their last /pay is refused before any look-up (the slot read ahead spent).
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { isNewReplyIn, payAndConfirm, sendAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID, STRANGER_ID } from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

const LOOKUP = { method: "GET", path: "/data/userinfo/237670000001" } as const;

describe("/pay read ahead", () => {
  const h = harnessPerTest();

  async function slotsTaken(): Promise<number> {
    const redis = testRedis();
    try {
      return await redis.zcard(keys(h.prefix).rateLimit("payment-api"));
    } finally {
      redis.disconnect();
    }
  }

  it("takes one slot and makes one look-up per prompt, and still warns of a repeat", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 5000");
    const lookups = h.sandbox.countRequests(LOOKUP);
    const slots = await slotsTaken();

    // The payer is known now: this /pay is read ahead.
    const again = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");

    expect(plainText(again)).toContain("PAID ALREADY?");
    expect(again.replyMarkup?.flat().map((button) => button.text)).toContain("⚠️ Pay again");
    expect(h.sandbox.countRequests(LOOKUP)).toBe(lookups + 1);
    expect(await slotsTaken()).toBe(slots + 1);
  });

  it("takes no slot for a stranger's /pay", async () => {
    const stranger = h.emulator.user({ id: STRANGER_ID, firstName: "Eve", languageCode: "en" });
    const slots = await slotsTaken();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const reply = await sendAndWait(h.emulator, stranger, "/pay 237670000001 5000");
      expect(plainText(reply)).toContain(String(STRANGER_ID));
    }
    expect(await slotsTaken()).toBe(slots);
    expect(h.sandbox.countRequests(LOOKUP)).toBe(0);
  });

  it("refuses a payer demoted since their last /pay before any look-up", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    expect(h.sandbox.countRequests(LOOKUP)).toBe(1);
    await h.app.stores.staff.set(PAYER_ID, "viewer");
    const slots = await slotsTaken();

    const refusal = await sendAndWait(
      h.emulator,
      payer,
      "/pay 237670000001 6000",
      isNewReplyIn(PAYER_ID),
    );

    expect(refusal.replyMarkup ?? []).toHaveLength(0);
    expect(h.sandbox.countRequests(LOOKUP)).toBe(1);
    // The slot read ahead (the payer could pay at their last /pay) is spent, unused.
    expect(await slotsTaken()).toBe(slots + 1);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
    expect(items).toHaveLength(1);
  });

  it("takes no more slots for a payer removed from the staff since their last /pay", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    await h.app.stores.staff.remove(PAYER_ID);
    const slots = await slotsTaken();

    for (let attempt = 0; attempt < 3; attempt += 1) {
      const reply = await sendAndWait(h.emulator, payer, "/pay 237670000001 6000");
      expect(plainText(reply)).toContain(String(PAYER_ID));
    }

    // Only the first one, read ahead before the removal was known, spends a slot.
    expect(await slotsTaken()).toBe(slots + 1);
    expect(h.sandbox.countRequests(LOOKUP)).toBe(1);
  });
});
