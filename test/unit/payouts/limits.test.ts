/**
 * The rules of issue 12 in the payout steps, on memory stores and the sandbox over HTTP:
 * four-eyes approval (request, approve, reject with a reason, expire), the daily caps
 * (checked at the prompt, reserved at Confirm, given back), the duplicate warning, and an
 * older prompt retired by a newer one.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  ADMIN,
  PAYER,
  payouts,
  prompt,
  RULES,
  sandbox,
  spentToday,
  start,
  stores,
  useRulesWorld,
} from "./rules-world.js";

useRulesWorld();

describe("daily limits", () => {
  beforeEach(() =>
    start({
      ...RULES,
      approvalThresholdXaf: undefined,
      payerDailyLimitXaf: 10_000,
      merchantDailyLimitXaf: 15_000,
    }),
  );

  it("refuses a prompt over the payer's cap with what is left, audited, storing nothing", async () => {
    const { payout } = await prompt(PAYER, "6000");
    await payouts.submission.claim(payout.id, PAYER);
    const refused = await payouts.preparation.prepare({
      kind: "disbursement",
      phone: "237690000001",
      amount: "5000",
      initiatorId: PAYER.userId,
      initiatorRole: "payer",
      chatId: PAYER.userId,
      locale: "en",
    });
    expect(refused).toEqual({
      outcome: "refused",
      reason: "over_limit",
      over: { limit: "payer", capXaf: 10_000, usedXaf: 6000, leftXaf: 4000 },
    });
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      action: "limit_refused",
      actorId: PAYER.userId,
      amount: 5000,
      details: { step: "prompt", limit: "payer", capXaf: 10_000, usedXaf: 6000 },
    });
    expect((await stores.payouts.list({ userId: PAYER.userId, offset: 0, limit: 5 })).total).toBe(
      1,
    );
  });

  it("refuses a Confirm that someone else's spending took over the cap, sending nothing", async () => {
    const mine = await prompt(PAYER, "8000");
    const theirs = await prompt(ADMIN, "9000", "237690000001");
    expect((await payouts.submission.claim(theirs.payout.id, ADMIN)).outcome).toBe("claimed");
    const refused = await payouts.submission.claim(mine.payout.id, PAYER);
    expect(refused).toMatchObject({
      outcome: "over_limit",
      over: { limit: "merchant", capXaf: 15_000, usedXaf: 9000, leftXaf: 6000 },
    });
    expect((await stores.payouts.get(mine.payout.id))?.state).toBe("awaiting_confirmation");
    expect((await stores.audit.recent(1))[0]).toMatchObject({
      action: "limit_refused",
      payoutId: mine.payout.id,
      details: { step: "confirm", limit: "merchant" },
    });
  });

  it("gives a refused payment's amount back, so the day's room comes back", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", status: 403 });
    const { payout } = await prompt(PAYER, "10000");
    const claimed = await payouts.submission.claim(payout.id, PAYER);
    if (claimed.outcome !== "claimed") throw new Error(claimed.outcome);
    expect((await payouts.submission.submit(claimed)).outcome).toBe("refused");
    expect(await spentToday()).toEqual({ merchant: 0, byUser: {} });
    expect((await prompt(PAYER, "10000", "237690000001")).payout.state).toBe(
      "awaiting_confirmation",
    );
  });

  it("counts no collection: money coming in is capped by nothing", async () => {
    const collection = await payouts.preparation.prepare({
      kind: "collection",
      phone: "237670000001",
      amount: "20000",
      initiatorId: PAYER.userId,
      initiatorRole: "payer",
      chatId: PAYER.userId,
      locale: "en",
    });
    if (collection.outcome === "refused") throw new Error(collection.reason);
    const claimed = await payouts.submission.claim(collection.payout.id, PAYER);
    expect(claimed).toMatchObject({ outcome: "claimed", payout: { state: "submitting" } });
    expect((await stores.payouts.get(collection.payout.id))?.limitDay).toBeUndefined();
    expect(await spentToday()).toEqual({ merchant: 0, byUser: {} });
  });

  it("reports today's caps and what each payer counted", async () => {
    for (const [who, amount] of [
      [PAYER, "4000"],
      [ADMIN, "7000"],
    ] as const) {
      const { payout } = await prompt(who, amount, who === PAYER ? "237670000001" : "237690000001");
      await payouts.submission.claim(payout.id, who);
    }
    expect(await payouts.limits.report()).toEqual({
      day: "2024-11-23",
      payerCapXaf: 10_000,
      merchantCapXaf: 15_000,
      merchantUsedXaf: 11_000,
      byUser: new Map([
        [PAYER.userId, 4000],
        [ADMIN.userId, 7000],
      ]),
      approvalBands: [],
    });
  });
});
