/**
 * The Overview's figures from the day totals: paid volume per settlement day by operator,
 * success rate over the final states the API gave, fees; a payer's Overview counts only their
 * own payouts; what needs a person lists the oldest first with the count of all.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Payout } from "../../../../src/model/payout.js";
import { overviewFor } from "../../../../src/payouts/dashboard/overview.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import type { Stores } from "../../../../src/store/types.js";
import { acceptedPayout } from "../../../support/payouts.js";

const NOW = Date.UTC(2026, 10, 25, 12);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const ADMIN = { userId: 1, role: "admin" as const };
const PAYER = { userId: 2, role: "payer" as const };

let stores: Stores;
const overview = (asker: typeof ADMIN | typeof PAYER | null) =>
  overviewFor({ stores, timeZone: "Africa/Douala", stuckAfterMs: HOUR, now: () => NOW }, asker);

async function add(overrides: Partial<Payout>): Promise<Payout> {
  const payout = acceptedPayout(overrides.createdAtMs ?? NOW - HOUR, overrides);
  await stores.payouts.create(payout);
  return payout;
}

beforeEach(() => {
  stores = createMemoryStores({ retentionMs: 90 * DAY, now: () => NOW });
});

describe("Overview", () => {
  it("sums paid volume by settlement day and operator, the success rate and the fees", async () => {
    await add({ state: "success", amount: 7000, fee: 70, settledAtMs: NOW - HOUR });
    await add({ state: "success", amount: 3000, fee: 30, operator: "orange", initiatorId: 2 });
    await add({ state: "success", amount: 2000, fee: 20, settledAtMs: NOW - 2 * DAY });
    await add({ state: "success", kind: "collection", amount: 9000, fee: 90 });
    await add({ state: "failed", amount: 8000, initiatorId: 2 });
    await add({ state: "rejected_by_api", amount: 500 });
    // Not a final state the API gave: not counted anywhere.
    await add({ state: "cancelled" });
    // Settled before the 30 days shown.
    await add({ state: "success", amount: 1000, settledAtMs: NOW - 40 * DAY });

    const shown = await overview(ADMIN);
    expect(shown.days).toHaveLength(30);
    expect(shown.days.at(-1)).toEqual({ day: "2026-11-25", mtn: 7000, orange: 3000 });
    expect(shown.days.at(-3)).toEqual({ day: "2026-11-23", mtn: 2000, orange: 0 });
    expect(shown.paidXaf).toBe(12_000);
    expect(shown.paidCount).toBe(3);
    expect(shown.feesXaf).toBe(70 + 30 + 20 + 90);
    expect(shown.successRate).toBe(4 / 6);
    expect(shown.failedXaf).toBe(8500);
    expect(shown.failedCount).toBe(2);
    expect(shown.today).toEqual({ paidXaf: 10_000, paidCount: 2 });
    // The 30 days before: the one paid 40 days ago.
    expect(shown.previous).toEqual({
      paidXaf: 1000,
      paidCount: 1,
      successRate: 1,
      failedXaf: 0,
      failedCount: 0,
    });

    const own = await overview(PAYER);
    expect(own.paidXaf).toBe(3000);
    expect(own.successRate).toBe(1 / 2);
    expect(own.days.at(-1)).toEqual({ day: "2026-11-25", mtn: 0, orange: 3000 });
    expect(own.failedXaf).toBe(8000);
    // Nothing of theirs settled in the 30 days before: nothing to compare with.
    expect(own.previous).toBeNull();
    expect((await overview(null)).successRate).toBeNull();
  });

  it("compares the last 30 days with the 30 before, read in one step of 60 day hashes", async () => {
    await add({ state: "success", amount: 5000, settledAtMs: NOW - 35 * DAY });
    await add({ state: "failed", amount: 700, settledAtMs: NOW - 59 * DAY });
    // Older than the 60 days: read by neither period.
    await add({ state: "success", amount: 99_000, settledAtMs: NOW - 61 * DAY });
    const read: string[][] = [];
    const settledTotals = stores.payouts.settledTotals.bind(stores.payouts);
    stores.payouts.settledTotals = async (days, userId) => {
      read.push([...days]);
      return settledTotals(days, userId);
    };
    const shown = await overview(ADMIN);
    expect(read).toHaveLength(1);
    expect(read[0]).toHaveLength(60);
    expect(read[0]?.at(-1)).toBe("2026-11-25");
    expect(shown.days).toHaveLength(30);
    expect(shown.paidXaf).toBe(0);
    expect(shown.successRate).toBeNull();
    expect(shown.previous).toEqual({
      paidXaf: 5000,
      paidCount: 1,
      successRate: 1 / 2,
      failedXaf: 700,
      failedCount: 1,
    });
  });

  it("lists what needs a person, oldest first, counting all, a payer's own only", async () => {
    const stuck = await add({ state: "pending", createdAtMs: NOW - 3 * HOUR });
    await add({ state: "pending", createdAtMs: NOW - HOUR / 2 });
    const unknown = [
      await add({ state: "unknown", createdAtMs: NOW - 2 * HOUR, initiatorId: 2 }),
      await add({ state: "unknown", createdAtMs: NOW - 5 * HOUR }),
    ];
    const shown = await overview(ADMIN);
    expect(shown.attention.stuck.count).toBe(1);
    expect(shown.attention.stuck.items.map((item) => item.id)).toEqual([stuck.id]);
    expect(shown.attention.unknown.items.map((item) => item.id)).toEqual([
      unknown[1]?.id,
      unknown[0]?.id,
    ]);
    const own = await overview(PAYER);
    expect(own.attention.unknown).toEqual({
      count: 1,
      items: [expect.objectContaining({ id: unknown[0]?.id })],
    });
    expect(own.attention.stuck.count).toBe(0);
  });
});
