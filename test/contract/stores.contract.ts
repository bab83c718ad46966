/**
 * What every implementation of the store interfaces (src/store/types.ts) must do. Run
 * against Redis (test/integration/store) and memory (test/unit/store), so the demo's
 * stores cannot drift from production's. Named .contract.ts: it runs only through those.
 */

import { describe, expect, it } from "vitest";
import type { AuditAction } from "../../src/model/audit.js";
import type { Stores } from "../../src/store/types.js";
import { describeBatchStoreContract } from "./batch-store.contract.js";
import { describePayoutSearchContract } from "./payout-search.contract.js";
import { describePayoutStoreContract, payoutIn, samplePayout } from "./payout-store.contract.js";
import { describePinStoreContract } from "./pin-store.contract.js";
import { describeRecipientStoreContract } from "./recipient-store.contract.js";
import { describeReportsContract } from "./reports.contract.js";
import { describeRulesContract } from "./rules.contract.js";
import { describeScheduleStoreContract } from "./schedule-store.contract.js";
import { describeSettledTotalsContract } from "./settled-totals.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

/** Short enough to wait for, long enough for a few round trips to fit in it. */
const SHORT_RETENTION_MS = 300;

/** The whole contract, under `describe(name)`. */
export function describeStoreContract(name: string, makeStores: MakeStores): void {
  describe(name, () => {
    describePayoutStoreContract(makeStores);
    describePayoutSearchContract(makeStores);
    describeSettledTotalsContract(makeStores);
    describeReportsContract(makeStores);
    describeRulesContract(makeStores);
    describeBatchStoreContract(makeStores);
    describeRecipientStoreContract(makeStores);
    describeScheduleStoreContract(makeStores);
    describePinStoreContract(makeStores);
    describeRetention(makeStores);

    describe("with fresh stores", () => {
      const harness = storesPerTest(makeStores, 600_000);

      it("answers ping", async () => {
        expect(await harness.stores.ping()).toBe(true);
      });

      describeSessionsAndStaff(() => harness);
      describeQueues(() => harness.stores);
      describeLeases(() => harness);
      describeThrottles(() => harness);
    });
  });
}

function describeRetention(makeStores: MakeStores): void {
  describe("retention", () => {
    const harness = storesPerTest(makeStores, SHORT_RETENTION_MS);

    it("keeps a payout while in flight and forgets it a retention after it settles", async () => {
      const { stores, elapse } = harness;
      const payout = samplePayout();
      await stores.payouts.create(payout);
      await stores.payouts.transition(payout.id, "confirm");
      await stores.payouts.transition(payout.id, "accepted", { paymentId: "pay_retained" });
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect((await stores.payouts.get(payout.id))?.state).toBe("pending");

      await stores.payouts.transition(payout.id, "settle_success");
      expect((await stores.payouts.findByPaymentId("pay_retained"))?.state).toBe("success");
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect(await stores.payouts.get(payout.id)).toBeNull();
      expect(await stores.payouts.findByPaymentId("pay_retained")).toBeNull();
      expect(await stores.payouts.list({ offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it("keeps an unknown payout past the retention", async () => {
      const { stores, elapse } = harness;
      const payout = await payoutIn(stores, "unknown");
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect(await stores.payouts.get(payout.id)).toEqual(payout);
      expect((await stores.payouts.listInState("unknown")).map((p) => p.id)).toEqual([payout.id]);
    });

    it("forgets a payout never confirmed a retention after it was created", async () => {
      const { stores, elapse } = harness;
      const payout = samplePayout();
      await stores.payouts.create(payout);
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect(await stores.payouts.get(payout.id)).toBeNull();
      expect(await stores.payouts.transition(payout.id, "confirm")).toEqual({
        ok: false,
        reason: "not_found",
      });
    });
  });
}

type Clocked = () => { stores: Stores; elapse: (ms: number) => Promise<void> };

function describeSessionsAndStaff(current: Clocked): void {
  describe("sessions", () => {
    it("keeps a dialog until its ttl passes", async () => {
      const { stores, elapse } = current();
      const dialog = { kind: "disbursement", step: "amount", phone: "237670000001" } as const;
      await stores.sessions.setDialog(-1001234567890123, dialog, 1);
      expect(await stores.sessions.getDialog(-1001234567890123)).toEqual(dialog);
      expect(await stores.sessions.getDialog(5)).toBeNull();
      await elapse(1100);
      expect(await stores.sessions.getDialog(-1001234567890123)).toBeNull();
    });

    it("replaces and clears a dialog", async () => {
      const { stores } = current();
      await stores.sessions.setDialog(5, { kind: "collection", step: "phone" }, 60);
      await stores.sessions.setDialog(5, { kind: "disbursement", step: "phone" }, 60);
      expect(await stores.sessions.getDialog(5)).toEqual({ kind: "disbursement", step: "phone" });
      await stores.sessions.clearDialog(5);
      expect(await stores.sessions.getDialog(5)).toBeNull();
    });

    it("remembers each user's language", async () => {
      const { stores } = current();
      expect(await stores.sessions.getLocale(1)).toBeNull();
      await stores.sessions.setLocale(1, "en");
      await stores.sessions.setLocale(1, "fr");
      await stores.sessions.setLocale(2, "en");
      expect([await stores.sessions.getLocale(1), await stores.sessions.getLocale(2)]).toEqual([
        "fr",
        "en",
      ]);
    });
  });

  describe("staff", () => {
    it("sets, changes, lists and removes roles", async () => {
      const { stores } = current();
      await stores.staff.set(300, "payer");
      await stores.staff.set(100, "admin");
      await stores.staff.set(300, "approver");
      expect(await stores.staff.get(300)).toBe("approver");
      expect(await stores.staff.get(999)).toBeNull();
      expect(await stores.staff.list()).toEqual([
        { userId: 100, role: "admin", grantedAtMs: expect.any(Number) },
        { userId: 300, role: "approver", grantedAtMs: expect.any(Number) },
      ]);
      expect(await stores.staff.remove(300)).toBe(true);
      expect(await stores.staff.remove(300)).toBe(false);
      expect(await stores.staff.list()).toEqual([
        { userId: 100, role: "admin", grantedAtMs: expect.any(Number) },
      ]);
    });
  });

  describe("profiles", () => {
    it("keeps each staff member's latest name and answers for the ones it knows", async () => {
      const { stores } = current();
      await stores.profiles.set(100, { firstName: "Ama", username: "ama_k" });
      await stores.profiles.set(300, { firstName: "Paul" });
      await stores.profiles.set(100, { firstName: "Amaka" });
      const found = await stores.profiles.getMany([100, 300, 999, 100]);
      expect([...found.entries()].sort(([a], [b]) => a - b)).toEqual([
        [100, { firstName: "Amaka" }],
        [300, { firstName: "Paul" }],
      ]);
      expect((await stores.profiles.getMany([])).size).toBe(0);
    });

    it("refuses a profile Telegram could not have sent, and keeps the one it had", async () => {
      const { stores } = current();
      await stores.profiles.set(100, { firstName: "Ama" });
      await expect(stores.profiles.set(100, { firstName: "" })).rejects.toThrow(/profile/);
      await expect(
        stores.profiles.set(100, { firstName: "Ama", username: "has space" }),
      ).rejects.toThrow(/profile/);
      expect((await stores.profiles.getMany([100])).get(100)).toEqual({ firstName: "Ama" });
    });
  });
}

function describeQueues(current: () => Stores): void {
  describe("due queues", () => {
    const nowMs = 1_800_000_000_000;

    it("hands out only due ids, earliest first, up to the limit", async () => {
      const { tracking } = current();
      await tracking.schedule("c", nowMs - 10);
      await tracking.schedule("a", nowMs - 30);
      await tracking.schedule("b", nowMs - 20);
      await tracking.schedule("later", nowMs + 1);
      expect(await tracking.claimDue(nowMs, 2, 1000)).toEqual(["a", "b"]);
      expect(await tracking.claimDue(nowMs, 10, 1000)).toEqual(["c"]);
      expect(await tracking.size()).toBe(4);
    });

    it("says when the earliest id is due, and null when none is queued", async () => {
      const { outbox } = current();
      expect(await outbox.earliestDueAtMs()).toBeNull();
      await outbox.schedule("later", nowMs + 5);
      await outbox.schedule("first", nowMs - 30);
      expect(await outbox.earliestDueAtMs()).toBe(nowMs - 30);
      await outbox.remove("first");
      expect(await outbox.earliestDueAtMs()).toBe(nowMs + 5);
    });

    it("hides claimed ids until their lease passes", async () => {
      const { tracking } = current();
      await tracking.schedule("x", nowMs);
      expect(await tracking.claimDue(nowMs, 10, 5000)).toEqual(["x"]);
      expect(await tracking.dueAt("x")).toBe(nowMs + 5000);
      expect(await tracking.claimDue(nowMs + 4999, 10, 5000)).toEqual([]);
      expect(await tracking.claimDue(nowMs + 5000, 10, 5000)).toEqual(["x"]);
    });

    it("never hands the same id to two concurrent claimers", async () => {
      const { tracking } = current();
      const ids = Array.from({ length: 20 }, (_, index) => `id-${String(index).padStart(2, "0")}`);
      for (const id of ids) await tracking.schedule(id, nowMs - 1);
      const [first, second] = await Promise.all([
        tracking.claimDue(nowMs, 15, 60_000),
        tracking.claimDue(nowMs, 15, 60_000),
      ]);
      const claimed = [...(first ?? []), ...(second ?? [])];
      expect(claimed.sort()).toEqual(ids);
    });

    it("reschedules and removes ids, and keeps the outbox apart", async () => {
      const { tracking, outbox } = current();
      await tracking.schedule("y", nowMs);
      await tracking.schedule("y", nowMs + 500);
      expect(await tracking.dueAt("y")).toBe(nowMs + 500);
      expect(await tracking.claimDue(nowMs, 10, 1000)).toEqual([]);
      expect(await tracking.dueAtMany(["y", "nope", "y"])).toEqual([
        nowMs + 500,
        null,
        nowMs + 500,
      ]);
      expect(await tracking.dueAtMany([])).toEqual([]);
      await tracking.remove("y");
      expect(await tracking.dueAt("y")).toBeNull();
      expect(await tracking.size()).toBe(0);
      await outbox.schedule("z", nowMs);
      expect([await tracking.size(), await outbox.size()]).toEqual([0, 1]);
    });
  });

  describe("audit log", () => {
    it("returns the newest entries first, up to the limit", async () => {
      const { audit } = current();
      await audit.record({
        atMs: 1,
        actorId: 10,
        actorRole: "admin",
        action: "resolve_with_id",
        payoutId: "po_1",
      });
      await audit.record({
        atMs: 2,
        actorId: 11,
        actorRole: "admin",
        action: "staff_set",
        details: { role: "payer", userId: 12, bootstrap: false, note: null },
      });
      await audit.record({ atMs: 3, actorId: 10, actorRole: "payer", action: "cancel" });
      const recent = await audit.recent(2);
      expect(recent.map((entry) => entry.atMs)).toEqual([3, 2]);
      expect(recent[1]?.details).toEqual({
        role: "payer",
        userId: 12,
        bootstrap: false,
        note: null,
      });
      expect((await audit.recent(10)).map((entry) => entry.action)).toEqual([
        "cancel",
        "staff_set",
        "resolve_with_id",
      ]);
    });

    it("pages newest first, each page going on from where the last one stopped", async () => {
      const { audit } = current();
      for (let n = 1; n <= 7; n++) {
        await audit.record({ atMs: n, actorId: 1, actorRole: "admin", action: "export" });
      }
      const first = await audit.page({ limit: 3 });
      expect(first.entries.map((entry) => entry.atMs)).toEqual([7, 6, 5]);
      const second = await audit.page({ limit: 3, before: first.next });
      expect(second.entries.map((entry) => entry.atMs)).toEqual([4, 3, 2]);
      const last = await audit.page({ limit: 3, before: second.next });
      expect(last.entries.map((entry) => entry.atMs)).toEqual([1]);
      expect(last.next).toBeUndefined();
    });

    it("reads a period oldest first, page by page, for exports", async () => {
      const { audit } = current();
      const startMs = Date.now() - 1000;
      for (let n = 1; n <= 5; n++) {
        await audit.record({ atMs: n, actorId: 1, actorRole: "admin", action: "export" });
      }
      const endMs = Date.now() + 1000;
      const first = await audit.range({ fromMs: startMs, toMs: endMs, limit: 2 });
      expect(first.entries.map((entry) => entry.atMs)).toEqual([1, 2]);
      const rest = await audit.range({
        fromMs: startMs,
        toMs: endMs,
        limit: 10,
        after: first.next,
      });
      expect(rest.entries.map((entry) => entry.atMs)).toEqual([3, 4, 5]);
      expect(
        (await audit.range({ fromMs: endMs + 60_000, toMs: endMs + 120_000, limit: 10 })).entries,
      ).toEqual([]);
    });

    it("refuses an entry that is not one, and keeps nothing of it", async () => {
      const { audit } = current();
      await expect(
        // An action no version writes, as a caller that skipped the type check would send.
        audit.record({ atMs: 1, actorId: 1, actorRole: "admin", action: "" as AuditAction }),
      ).rejects.toThrow(/audit entry/);
      expect(await audit.recent(10)).toEqual([]);
    });
  });
}

function describeLeases(current: Clocked): void {
  describe("leases", () => {
    it("lets one owner hold a lease at a time, and that owner take it again", async () => {
      const { leases } = current().stores;
      expect(await leases.acquire("poller", "a", 10_000)).toBe(true);
      expect(await leases.acquire("poller", "b", 10_000)).toBe(false);
      expect(await leases.acquire("poller", "a", 10_000)).toBe(true);
      expect(await leases.acquire("other", "b", 10_000)).toBe(true);
    });

    it("renews and releases only for the owner", async () => {
      const { leases } = current().stores;
      await leases.acquire("poller", "a", 10_000);
      expect(await leases.renew("poller", "b", 10_000)).toBe(false);
      await leases.release("poller", "b");
      expect(await leases.acquire("poller", "b", 10_000)).toBe(false);
      expect(await leases.renew("poller", "a", 10_000)).toBe(true);
      await leases.release("poller", "a");
      expect(await leases.renew("poller", "a", 10_000)).toBe(false);
      expect(await leases.acquire("poller", "b", 10_000)).toBe(true);
    });

    it("frees a lease whose ttl passed", async () => {
      const { stores, elapse } = current();
      await stores.leases.acquire("poller", "a", 200);
      await elapse(300);
      expect(await stores.leases.renew("poller", "a", 200)).toBe(false);
      expect(await stores.leases.acquire("poller", "b", 10_000)).toBe(true);
    });
  });
}

function describeThrottles(current: Clocked): void {
  describe("throttles", () => {
    it("allows an action up to its limit in a window, for each name apart", async () => {
      const { throttles } = current().stores;
      const taken = await Promise.all(
        Array.from({ length: 5 }, () => throttles.take("press:1", 3, 10_000)),
      );
      expect(taken.filter(Boolean)).toHaveLength(3);
      expect(await throttles.take("press:1", 3, 10_000)).toBe(false);
      expect(await throttles.take("press:2", 3, 10_000)).toBe(true);
    });

    it("allows it again once the window that began with the first action ended", async () => {
      const { stores, elapse } = current();
      expect(await stores.throttles.take("reread:p1", 1, 200)).toBe(true);
      expect(await stores.throttles.take("reread:p1", 1, 200)).toBe(false);
      await elapse(300);
      expect(await stores.throttles.take("reread:p1", 1, 200)).toBe(true);
      expect(await stores.throttles.take("reread:p1", 1, 200)).toBe(false);
    });
  });
}
