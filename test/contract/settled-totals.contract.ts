/**
 * The day totals' part of the store contract (see stores.contract.ts): every payout that
 * reaches a final state the API gave is counted once, on the day (TIME_ZONE) it settled,
 * in everyone's totals and its initiator's, whether it was created in that state or moved
 * into it (an unknown payout resolved included); the totals always equal a recount over the
 * payouts themselves. And what needs a person: how many wait in a state, the oldest few.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Payout } from "../../src/model/payout.js";
import { addTotals, COUNTED_STATES, type DayTotals, totalsOf } from "../../src/model/totals.js";
import type { Stores } from "../../src/store/types.js";
import { DEFAULT_TIME_ZONE, dayOf } from "../../src/time.js";
import { payoutIn, samplePayout } from "./payout-store.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

const DAY = 86_400_000;

/** The totals recounted from the payouts themselves, by day (and `userId`'s only). */
async function recount(stores: Stores, days: readonly string[], userId?: number) {
  const byDay = new Map<string, DayTotals>(days.map((day) => [day, {}]));
  let after: string | undefined;
  do {
    const page = await stores.payouts.listCreated({
      fromMs: Date.now() - 10 * DAY,
      toMs: Date.now() + DAY,
      limit: 100,
      ...(after === undefined ? {} : { after }),
    });
    for (const payout of page.items) {
      if (!COUNTED_STATES.has(payout.state)) continue;
      if (userId !== undefined && payout.initiatorId !== userId) continue;
      // Counted when it settled: the settlement's time, else the move's (its last).
      const day = dayOf(payout.settledAtMs ?? payout.updatedAtMs, DEFAULT_TIME_ZONE);
      const sums = byDay.get(day);
      if (sums) byDay.set(day, addTotals(sums, totalsOf(payout)));
    }
    after = page.next;
  } while (after !== undefined);
  return days.map((day) => byDay.get(day) ?? {});
}

export function describeSettledTotalsContract(makeStores: MakeStores): void {
  describe("settled day totals", () => {
    const harness = storesPerTest(makeStores, 600_000);
    let stores: Stores;
    let nowMs: number;
    let days: string[];

    beforeEach(() => {
      stores = harness.stores;
      nowMs = Date.now();
      days = [3, 2, 1, 0].map((back) => dayOf(nowMs - back * DAY, DEFAULT_TIME_ZONE));
    });

    async function settle(
      payout: Payout,
      event: "settle_success" | "settle_failed",
      atMs?: number,
    ) {
      const patch = { fee: 40, ...(atMs === undefined ? {} : { settledAtMs: atMs }) };
      const result = await stores.payouts.transition(payout.id, event, patch);
      if (!result.ok) throw new Error(`could not ${event}: ${result.reason}`);
    }

    it("counts each settled payout once, on its day, equal to a recount", async () => {
      expect(await stores.payouts.settledTotals(days)).toEqual([{}, {}, {}, {}]);
      // Moved into final states: paid (today and two days ago), failed, canceled, refused.
      const paid = await payoutIn(stores, "pending", { amount: 7000 });
      await settle(paid, "settle_success");
      const paidEarlier = await payoutIn(stores, "pending", { operator: "orange", amount: 3000 });
      await settle(paidEarlier, "settle_success", nowMs - 2 * DAY);
      const failed = await payoutIn(stores, "pending", { initiatorId: 222, amount: 8000 });
      await settle(failed, "settle_failed");
      const canceled = await payoutIn(stores, "canceled", { amount: 2500 });
      const refused = await payoutIn(stores, "rejected_by_api", { amount: 1200 });
      // Not counted: not final, or final without a request the API answered.
      for (const state of ["pending", "unknown", "cancelled", "rejected", "expired"] as const) {
        await payoutIn(stores, state);
      }
      // Created already settled (an import, the bench): counted at creation.
      const created = samplePayout({
        kind: "collection",
        state: "success",
        fee: 15,
        settledAtMs: nowMs - DAY,
        initiatorId: 222,
      });
      await stores.payouts.create(created);

      const totals = await stores.payouts.settledTotals(days);
      expect(totals).toEqual(await recount(stores, days));
      const today = totals[3] ?? {};
      expect(today["mtn:disbursement:paid_xaf"]).toBe(7000);
      expect(today["mtn:disbursement:fees_xaf"]).toBe(40);
      expect(today["mtn:disbursement:failed_count"]).toBe(3);
      // Failed volume: the amounts of the three that failed, canceled or were refused.
      expect(today["mtn:disbursement:failed_xaf"]).toBe(
        failed.amount + canceled.amount + refused.amount,
      );
      expect(totals[1]).toEqual({
        "orange:disbursement:paid_xaf": 3000,
        "orange:disbursement:paid_count": 1,
        "orange:disbursement:fees_xaf": 40,
      });
      expect(totals[2]?.["mtn:collection:paid_count"]).toBe(1);
      // An initiator's own totals hold their payouts only.
      expect(await stores.payouts.settledTotals(days, 222)).toEqual(
        await recount(stores, days, 222),
      );
      expect((await stores.payouts.settledTotals(days, 222))[3]).toEqual({
        "mtn:disbursement:failed_xaf": 8000,
        "mtn:disbursement:failed_count": 1,
      });
      expect(await stores.payouts.settledTotals(days, 999)).toEqual([{}, {}, {}, {}]);

      // A second settlement of the same payout is refused, and counts nothing.
      expect((await stores.payouts.transition(paid.id, "settle_success")).ok).toBe(false);
      expect(await stores.payouts.settledTotals(days)).toEqual(totals);
    });

    it("counts an unknown payout when it is resolved, and only then", async () => {
      const lost = await payoutIn(stores, "unknown", { amount: 9000 });
      const gone = await payoutIn(stores, "unknown", { amount: 4000 });
      expect(await stores.payouts.settledTotals(days)).toEqual([{}, {}, {}, {}]);
      // Found in the merchant portal: pending again, then paid.
      await stores.payouts.transition(lost.id, "resolve_with_id", { paymentId: "pay_found" });
      expect(await stores.payouts.settledTotals(days)).toEqual([{}, {}, {}, {}]);
      await settle(lost, "settle_success");
      // Established as not made: failed straight away.
      const resolved = await stores.payouts.transition(gone.id, "resolve_failed", {
        settledAtMs: nowMs,
      });
      expect(resolved.ok).toBe(true);
      const totals = await stores.payouts.settledTotals(days);
      expect(totals).toEqual(await recount(stores, days));
      expect(totals[3]).toEqual({
        "mtn:disbursement:paid_xaf": 9000,
        "mtn:disbursement:paid_count": 1,
        "mtn:disbursement:fees_xaf": 40,
        "mtn:disbursement:failed_xaf": 4000,
        "mtn:disbursement:failed_count": 1,
      });
    });

    it("counts what waits in a state and reads only the oldest few, as filtered", async () => {
      const made: Payout[] = [];
      for (let i = 0; i < 5; i += 1) {
        const initiatorId = i % 2 === 0 ? 111 : 222;
        made.push(
          await payoutIn(stores, "unknown", { createdAtMs: nowMs - (5 - i) * 1000, initiatorId }),
        );
      }
      await payoutIn(stores, "pending");
      const all = await stores.payouts.oldestInState("unknown", { limit: 2 });
      expect(all.count).toBe(5);
      expect(all.items.map((p) => p.id)).toEqual([made[0]?.id, made[1]?.id]);
      expect(all.items[0]).toEqual(await stores.payouts.get(made[0]?.id ?? ""));
      const own = await stores.payouts.oldestInState("unknown", { limit: 10, userId: 222 });
      expect(own.count).toBe(2);
      expect(own.items.map((p) => p.id)).toEqual([made[1]?.id, made[3]?.id]);
      // Left (here: created, never sent) before a time: the stuck ones.
      const early = await stores.payouts.oldestInState("unknown", {
        limit: 10,
        leftBeforeMs: nowMs - 2500,
      });
      expect(early.items.map((p) => p.id)).toEqual([made[0]?.id, made[1]?.id, made[2]?.id]);
      // One that moves on is no longer counted.
      await stores.payouts.transition(made[0]?.id ?? "", "resolve_failed");
      expect((await stores.payouts.oldestInState("unknown", { limit: 1 })).count).toBe(4);
    });
  });
}
