import { describe, expect, it } from "vitest";
import type { Payout } from "../../../../src/model/payout.js";
import { DailyDigest } from "../../../../src/payouts/loops/digest.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import { startOfDayMs } from "../../../../src/time.js";
import { acceptedPayout } from "../../../support/payouts.js";

const ZONE = "Africa/Douala";
const DAY = "2025-01-06";
const MIDNIGHT = startOfDayMs(DAY, ZONE);
const NOW = MIDNIGHT + 20 * 3_600_000;

async function setup() {
  const stores = createMemoryStores({ retentionMs: 30 * 86_400_000, now: () => NOW });
  const add = async (overrides: Partial<Payout>) => {
    const payout = acceptedPayout(MIDNIGHT + 3_600_000, overrides);
    await stores.payouts.create(payout);
    return payout;
  };
  return { stores, add };
}

describe("DailyDigest", () => {
  it("counts and sums the day's payouts and collections by state, with the fees of those that completed", async () => {
    const { stores, add } = await setup();
    await add({ state: "success", amount: 5000, fee: 50 });
    await add({ state: "success", amount: 2000, fee: 20 });
    await add({ state: "failed", amount: 3000, fee: 30 });
    await add({ kind: "collection", state: "success", amount: 1000, fee: 20 });
    // The day before and the day after are not this day's.
    await add({ state: "success", createdAtMs: MIDNIGHT - 1, fee: 99 });
    await add({ state: "success", createdAtMs: NOW + 1, fee: 99 });

    const facts = await new DailyDigest({ stores, timeZone: ZONE, now: () => NOW }).facts(DAY);

    expect(facts).toMatchObject({ day: DAY, fromMs: MIDNIGHT, toMs: NOW });
    expect(facts.totals.disbursement).toEqual({
      states: [
        { state: "success", count: 2, amount: 7000 },
        { state: "failed", count: 1, amount: 3000 },
      ],
      fees: 70,
    });
    expect(facts.totals.collection).toEqual({
      states: [{ state: "success", count: 1, amount: 1000 }],
      fees: 20,
    });
  });

  it("lists what needs a person, newest first: unknown payouts and pending ones stuck or no longer polled", async () => {
    const { stores, add } = await setup();
    const unknown = await add({ state: "unknown", createdAtMs: MIDNIGHT - 86_400_000 });
    const stuck = await add({ state: "pending", stuckReportedAtMs: NOW });
    const stopped = await add({ state: "pending", trackingStoppedAtMs: NOW, createdAtMs: NOW });
    await add({ state: "pending" });

    const facts = await new DailyDigest({ stores, timeZone: ZONE, now: () => NOW }).facts(DAY);

    expect(facts.attention.map((payout) => payout.id)).toEqual([stopped.id, stuck.id, unknown.id]);
    expect(facts.attentionTotal).toBe(3);
  });

  it("covers a whole day that is over, and asks the other features for their sections", async () => {
    const { stores } = await setup();
    const windows: Array<{ fromMs: number; toMs: number }> = [];
    const digest = new DailyDigest({
      stores,
      timeZone: ZONE,
      now: () => NOW + 86_400_000,
      sources: {
        batches: async (window) => {
          windows.push(window);
          return [{ batchId: "b1", payouts: 3, succeeded: 2, amount: 9000 }];
        },
        limits: async () => [{ usedXaf: 10, limitXaf: 100 }],
      },
    });
    const facts = await digest.facts(DAY);
    expect(facts.toMs).toBe(startOfDayMs("2025-01-07", ZONE) - 1);
    expect(windows).toEqual([{ fromMs: MIDNIGHT, toMs: facts.toMs }]);
    expect(facts.batches).toHaveLength(1);
    expect(facts.limits).toEqual([{ usedXaf: 10, limitXaf: 100 }]);
  });
});
