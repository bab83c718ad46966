/**
 * The reports part of the store contract (see stores.contract.ts): payouts page by page in
 * the order they were created (exports, the digest), each day's digest queued once, and
 * each operator's availability compared with what was last seen, alerts queued in the
 * same step.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { noticeKey } from "../../src/model/notice.js";
import type { PaymentType, TelecomOperator } from "../../src/model/payment-terms.js";
import type { Payout } from "../../src/model/payout.js";
import type { Stores } from "../../src/store/types.js";
import { samplePayout } from "./payout-store.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

/** Every payout `listCreated` gives from `fromMs` to `toMs`, page by page; and the pages. */
async function allCreated(stores: Stores, fromMs: number, toMs: number, limit: number) {
  const ids: string[] = [];
  const pageSizes: number[] = [];
  let after: string | undefined;
  do {
    const page = await stores.payouts.listCreated({ fromMs, toMs, limit, after });
    ids.push(...page.items.map((payout) => payout.id));
    pageSizes.push(page.items.length);
    after = page.next;
  } while (after !== undefined);
  return { ids, pageSizes };
}

export function describeReportsContract(makeStores: MakeStores): void {
  describe("reports", () => {
    const harness = storesPerTest(makeStores, 86_400_000);
    let stores: Stores;

    beforeEach(() => {
      stores = harness.stores;
    });

    it("pages through the payouts of a period oldest first, ties by id, none twice or lost", async () => {
      const baseMs = Date.now() - 60_000;
      const created: Payout[] = [];
      // Three payouts share each millisecond, so page ends fall between ties.
      for (let index = 0; index < 12; index++) {
        const payout = samplePayout({ createdAtMs: baseMs + Math.floor(index / 3) });
        await stores.payouts.create(payout);
        created.push(payout);
      }
      const before = samplePayout({ createdAtMs: baseMs - 1 });
      const after = samplePayout({ createdAtMs: baseMs + 10 });
      await stores.payouts.create(before);
      await stores.payouts.create(after);
      const expected = [...created]
        .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1))
        .map((payout) => payout.id);

      const { ids, pageSizes } = await allCreated(stores, baseMs, baseMs + 9, 5);
      expect(ids).toEqual(expected);
      expect(pageSizes).toEqual([5, 5, 2]);
      expect((await allCreated(stores, baseMs - 1, baseMs + 10, 100)).ids).toEqual([
        before.id,
        ...expected,
        after.id,
      ]);
      expect(await stores.payouts.listCreated({ fromMs: 0, toMs: baseMs - 2, limit: 5 })).toEqual({
        items: [],
      });
    });

    it("gives each payout as stored, with its current state", async () => {
      const payout = samplePayout();
      await stores.payouts.create(payout);
      await stores.payouts.transition(payout.id, "cancel");
      const page = await stores.payouts.listCreated({
        fromMs: payout.createdAtMs,
        toMs: payout.createdAtMs,
        limit: 10,
      });
      expect(page.items).toHaveLength(1);
      expect(page.items[0]?.state).toBe("cancelled");
      expect(page.items[0]?.recipientName).toBe(payout.recipientName);
    });

    it("queues a day's digest once and only once", async () => {
      const nowMs = Date.now();
      expect(await stores.reports.queueDigestOnce("2025-01-06", nowMs)).toBe(true);
      expect(await stores.reports.queueDigestOnce("2025-01-06", nowMs)).toBe(false);
      expect(await stores.reports.queueDigestOnce("2025-01-07", nowMs)).toBe(true);
      const due = await stores.outbox.claimDue(nowMs, 10, 1000);
      expect(due.sort()).toEqual(["digest:2025-01-06", "digest:2025-01-07"]);
    });

    it("keeps availability, queues an alert once per change and for a first sight of a down operation", async () => {
      const nowMs = Date.now();
      type Which = { operator: TelecomOperator; operation: PaymentType };
      const mtn: Which = { operator: "mtn", operation: "disbursement" };
      const orange: Which = { operator: "orange", operation: "collection" };
      const seen = (status: string, atMs: number, which = mtn) =>
        stores.reports.observeAvailability({ ...which, status }, atMs);

      expect((await seen("OPERATIONAL", nowMs)).kind).toBe("first");
      expect((await seen("OPERATIONAL", nowMs + 10)).kind).toBe("same");
      const down = await seen("SUSPENDED", nowMs + 20);
      expect(down).toEqual({
        kind: "changed",
        state: { ...mtn, status: "SUSPENDED", up: false, sinceMs: nowMs + 20, firstSeen: false },
        previous: { ...mtn, status: "OPERATIONAL", up: true, sinceMs: nowMs, firstSeen: true },
      });
      // Another word for down is no change: nothing more to tell.
      expect((await seen("MAINTENANCE", nowMs + 30)).kind).toBe("same");
      expect((await seen("OPERATIONAL", nowMs + 40)).kind).toBe("changed");
      expect((await seen("bad status!", nowMs + 50, orange)).state).toMatchObject({
        status: "UNREADABLE",
        up: false,
        firstSeen: true,
      });

      const alert = (status: string, sinceMs: number, which: Which = mtn) =>
        noticeKey({ kind: "availability", ...which, status, sinceMs });
      const due = await stores.outbox.claimDue(nowMs + 100, 10, 1000);
      expect(due.sort()).toEqual(
        [
          alert("SUSPENDED", nowMs + 20),
          alert("OPERATIONAL", nowMs + 40),
          alert("UNREADABLE", nowMs + 50, orange),
        ].sort(),
      );
      const states = await stores.reports.availability();
      expect(states.sort((a, b) => a.operator.localeCompare(b.operator))).toEqual([
        { ...mtn, status: "OPERATIONAL", up: true, sinceMs: nowMs + 40, firstSeen: false },
        { ...orange, status: "UNREADABLE", up: false, sinceMs: nowMs + 50, firstSeen: true },
      ]);
    });
  });
}
