/**
 * The store contract of issue 12 (see stores.contract.ts): spending reserved against a
 * day's limits in the same atomic step as a move and given back exactly once, the payouts
 * waiting for approval, the payouts to one number (duplicate warning), each user's open
 * prompt, and the approval cards. Run against Redis and memory.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { PayoutEvent } from "../../src/model/lifecycle.js";
import type { Payout } from "../../src/model/payout.js";
import { PROMPT_GRACE_MS } from "../../src/store/payout-codec.js";
import type { Reservation, Stores } from "../../src/store/types.js";
import { payoutIn, runningBatch, samplePayout } from "./payout-store.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

const DAY = "2024-11-23";

function reservation(overrides: Partial<Reservation> = {}): Reservation {
  return { kind: "disbursement", day: DAY, payerCapXaf: null, merchantCapXaf: null, ...overrides };
}

export function describeRulesContract(makeStores: MakeStores): void {
  describe("spending limits, approvals, duplicates and prompts", () => {
    const harness = storesPerTest(makeStores, 600_000);
    let stores: Stores;

    beforeEach(() => {
      stores = harness.stores;
    });

    /** A new prompt of `amount` by `initiatorId`, awaiting confirmation. */
    async function prompt(initiatorId: number, amount: number) {
      const payout = samplePayout({ initiatorId, amount });
      await stores.payouts.create(payout);
      return payout;
    }

    async function usage() {
      const day = await stores.spending.usage(DAY);
      return { merchant: day.merchantXaf, byUser: Object.fromEntries(day.byUser) };
    }

    it("reserves a move's amount against its day and records the day on the payout", async () => {
      const payout = await prompt(111, 5000);
      const moved = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", reserve: reservation({ payerCapXaf: 8000, merchantCapXaf: 9000 }) },
      );
      expect(moved).toMatchObject({ ok: true, applied: true, payout: { limitDay: DAY } });
      expect(await usage()).toEqual({ merchant: 5000, byUser: { 111: 5000 } });
      expect(await stores.spending.usage("2024-11-24")).toEqual({
        merchantXaf: 0,
        byUser: new Map(),
      });
    });

    it("refuses a move that would pass the payer's cap, changing and auditing nothing", async () => {
      const first = await prompt(111, 5000);
      const second = await prompt(111, 4000);
      const other = await prompt(222, 4000);
      const caps = reservation({ payerCapXaf: 8000 });
      await stores.payouts.transition(first.id, "confirm", {}, { reserve: caps });
      const audited = (await stores.audit.recent(100)).length;

      const refused = await stores.payouts.transition(second.id, "confirm", {}, { reserve: caps });
      expect(refused).toEqual({
        ok: false,
        reason: "over_limit",
        limit: "payer",
        usedXaf: 5000,
        payout: second,
      });
      expect(await stores.payouts.get(second.id)).toEqual(second);
      expect(await stores.audit.recent(100)).toHaveLength(audited);
      // Someone else's day is their own.
      expect((await stores.payouts.transition(other.id, "confirm", {}, { reserve: caps })).ok).toBe(
        true,
      );
      expect(await usage()).toEqual({ merchant: 9000, byUser: { 111: 5000, 222: 4000 } });
    });

    it("refuses a move that would pass the merchant's cap, whoever reserved before", async () => {
      const first = await prompt(111, 6000);
      const second = await prompt(222, 5000);
      const caps = reservation({ merchantCapXaf: 10_000 });
      await stores.payouts.transition(first.id, "request_approval", {}, { reserve: caps });
      expect(
        await stores.payouts.transition(second.id, "confirm", {}, { reserve: caps }),
      ).toMatchObject({ ok: false, reason: "over_limit", limit: "merchant", usedXaf: 6000 });
      expect(await usage()).toEqual({ merchant: 6000, byUser: { 111: 6000 } });
    });

    it("moves a hold to the day of a later reservation, checked there, the old day given back", async () => {
      const NEXT = "2024-11-24";
      const held = await prompt(111, 6000);
      const other = await prompt(222, 5000);
      await stores.payouts.transition(held.id, "request_approval", {}, { reserve: reservation() });
      // The next day someone spends 5,000 of 10,000: approving 6,000 there would pass it.
      const nextCaps = reservation({ day: NEXT, merchantCapXaf: 10_000 });
      await stores.payouts.transition(other.id, "confirm", {}, { reserve: nextCaps });
      expect(
        await stores.payouts.transition(held.id, "approve", {}, { reserve: nextCaps }),
      ).toMatchObject({ ok: false, reason: "over_limit", limit: "merchant", usedXaf: 5000 });
      expect(await usage()).toEqual({ merchant: 6000, byUser: { 111: 6000 } });

      const roomy = reservation({ day: NEXT, merchantCapXaf: 11_000 });
      const moved = await stores.payouts.transition(held.id, "approve", {}, { reserve: roomy });
      expect(moved).toMatchObject({ ok: true, payout: { limitDay: NEXT } });
      expect(await usage()).toEqual({ merchant: 0, byUser: {} });
      const next = await stores.spending.usage(NEXT);
      expect(next.merchantXaf).toBe(11_000);
      expect(Object.fromEntries(next.byUser)).toEqual({ 111: 6000, 222: 5000 });
    });

    it("does not count a hold twice when it is reserved again on its own day", async () => {
      const held = await prompt(111, 6000);
      const caps = reservation({ merchantCapXaf: 6000 });
      await stores.payouts.transition(held.id, "request_approval", {}, { reserve: caps });
      const moved = await stores.payouts.transition(held.id, "approve", {}, { reserve: caps });
      expect(moved).toMatchObject({ ok: true, payout: { limitDay: DAY } });
      expect(await usage()).toEqual({ merchant: 6000, byUser: { 111: 6000 } });
    });

    it("claims a batch's row only while its batch runs: after Stop, the claim itself refuses", async () => {
      await runningBatch(stores, "batchS1");
      const rows = [0, 1].map((row) =>
        samplePayout({ id: `batchS1-${row}`, initiatorId: 111, batchId: "batchS1" }),
      );
      for (const row of rows) await stores.payouts.create(row);
      const [first, second] = rows;
      if (!first || !second) throw new Error("no rows");
      expect(
        await stores.payouts.transition(first.id, "confirm", {}, { claimId: "c1" }),
      ).toMatchObject({ ok: true, applied: true });

      await stores.batches.move("batchS1", ["running"], "sent", { stoppedBy: 222 });
      const audited = (await stores.audit.recent(100)).length;
      expect(await stores.payouts.transition(second.id, "confirm", {}, { claimId: "c2" })).toEqual({
        ok: false,
        reason: "batch_stopped",
        payout: second,
      });
      expect(await stores.payouts.get(second.id)).toEqual(second);
      expect(await stores.audit.recent(100)).toHaveLength(audited);
      // Moves other than a claim go on as before: the row can still be cancelled.
      expect((await stores.payouts.transition(second.id, "cancel")).ok).toBe(true);
    });

    it("keeps when each member got their role: a new role is granted, the same one kept", async () => {
      await stores.staff.set(555, "payer", undefined, 1000);
      await stores.staff.set(555, "payer", { source: "env" }, 2000);
      expect((await stores.staff.list()).find((m) => m.userId === 555)?.grantedAtMs).toBe(1000);
      await stores.staff.set(555, "approver", undefined, 3000);
      expect((await stores.staff.list()).find((m) => m.userId === 555)?.grantedAtMs).toBe(3000);
      await stores.staff.remove(555);
      await stores.staff.set(555, "approver", undefined, 4000);
      expect((await stores.staff.list()).find((m) => m.userId === 555)?.grantedAtMs).toBe(4000);
    });

    it("checks the initiator's and the decider's standing now in the move's own step", async () => {
      const payout = await prompt(111, 5000);
      await stores.payouts.transition(payout.id, "request_approval");
      const asked = (await stores.payouts.get(payout.id)) ?? payout;
      const paying = ["admin", "approver", "payer"] as const;
      const deciding = ["admin", "approver"] as const;
      const approveAs = (userId: number) =>
        stores.payouts.transition(
          payout.id,
          "approve",
          {},
          {
            expect: { initiatorRoles: paying, decider: { userId, roles: deciding } },
          },
        );
      await stores.staff.set(222, "approver", undefined, asked.createdAtMs - 1);
      await stores.staff.set(333, "approver", undefined, asked.createdAtMs + 1);
      // The initiator is not on staff (any more): refused, whoever decides.
      expect(await approveAs(222)).toMatchObject({ ok: false, reason: "initiator_not_allowed" });
      await stores.staff.set(111, "viewer");
      expect(await approveAs(222)).toMatchObject({ ok: false, reason: "initiator_not_allowed" });
      await stores.staff.set(111, "payer");
      // A decider made after the ask, or one without a deciding role: refused.
      expect(await approveAs(333)).toMatchObject({ ok: false, reason: "decider_too_new" });
      expect(await approveAs(444)).toMatchObject({ ok: false, reason: "decider_not_allowed" });
      expect(await stores.payouts.get(payout.id)).toEqual(asked);
      expect(await approveAs(222)).toMatchObject({ ok: true, applied: true });
    });

    describe("an approval by signatures", () => {
      const paying = ["admin", "approver", "payer"] as const;
      const deciding = ["admin", "approver"] as const;
      const signed = { kind: "approval_signed", payoutId: "" } as const;

      async function waiting(amount = 5000) {
        const payout = await prompt(111, amount);
        await stores.staff.set(111, "payer", undefined, 1);
        for (const userId of [222, 333, 444])
          await stores.staff.set(userId, "approver", undefined, 1);
        await stores.payouts.transition(
          payout.id,
          "request_approval",
          {},
          { reserve: reservation() },
        );
        return payout;
      }

      const signAs = (payoutId: string, userId: number, needed = 2, claimId = `c${userId}`) =>
        stores.payouts.transition(
          payoutId,
          "approve",
          { approvedBy: userId },
          {
            claimId,
            actor: { id: userId, role: "approver" },
            expect: { initiatorRoles: paying, decider: { userId, roles: deciding } },
            notices: [{ kind: "approval_decided", payoutId }],
            signature: { needed, signedNotices: [{ ...signed, payoutId }] },
          },
        );

      it("records a signature short of the rule without moving, and moves on the last", async () => {
        const payout = await waiting();
        const first = await signAs(payout.id, 222);
        expect(first).toMatchObject({ ok: true, applied: false, signed: true });
        const afterFirst = await stores.payouts.get(payout.id);
        expect(afterFirst?.state).toBe("awaiting_approval");
        expect(afterFirst?.signatures?.map((s) => s.userId)).toEqual([222]);
        expect(afterFirst?.approvedBy).toBeUndefined();
        expect(await stores.outbox.dueAt(`approval_signed:${payout.id}`)).not.toBeNull();
        const last = await signAs(payout.id, 333);
        expect(last).toMatchObject({ ok: true, applied: true, payout: { state: "submitting" } });
        if (last.ok) expect(last.payout.signatures?.map((s) => s.userId)).toEqual([222, 333]);
        const actions = (await stores.audit.page({ limit: 10 })).entries.map((e) => e.action);
        expect(actions.filter((a) => a === "sign" || a === "approve")).toEqual(["approve", "sign"]);
      });

      it("refuses the same person signing twice, changing nothing", async () => {
        const payout = await waiting();
        await signAs(payout.id, 222);
        const before = await stores.payouts.get(payout.id);
        expect(await signAs(payout.id, 222)).toMatchObject({ ok: false, reason: "already_signed" });
        expect(await stores.payouts.get(payout.id)).toEqual(before);
      });

      it("no longer counts a signer removed before the last signature", async () => {
        const payout = await waiting();
        await signAs(payout.id, 222);
        await stores.staff.remove(222);
        expect(await signAs(payout.id, 333)).toMatchObject({ ok: true, signed: true });
        expect((await stores.payouts.get(payout.id))?.signatures?.map((s) => s.userId)).toEqual([
          333,
        ]);
        expect(await signAs(payout.id, 444)).toMatchObject({ ok: true, applied: true });
      });

      it("makes exactly one last signature of two racing", async () => {
        const payout = await waiting();
        await signAs(payout.id, 222);
        const results = await Promise.all([signAs(payout.id, 333), signAs(payout.id, 444)]);
        const moved = results.filter((r) => r.ok && r.applied);
        expect(moved).toHaveLength(1);
        expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(["wrong_state"]);
      });

      it("needs three distinct people for a rule of three", async () => {
        const payout = await waiting();
        expect(await signAs(payout.id, 222, 3)).toMatchObject({ signed: true });
        expect(await signAs(payout.id, 333, 3)).toMatchObject({ signed: true });
        expect(await signAs(payout.id, 444, 3)).toMatchObject({ applied: true });
      });
    });

    it("lets exactly one of two Confirms racing at the cap through", async () => {
      const payouts = await Promise.all([prompt(111, 6000), prompt(222, 6000)]);
      const caps = reservation({ merchantCapXaf: 10_000 });
      const results = await Promise.all(
        payouts.map((payout) =>
          stores.payouts.transition(
            payout.id,
            "confirm",
            {},
            { claimId: payout.id, reserve: caps },
          ),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(results.filter((result) => !result.ok && result.reason === "over_limit")).toHaveLength(
        1,
      );
      expect((await usage()).merchant).toBe(6000);
    });

    it("moves a collection without counting it when the reservation is for payouts", async () => {
      const collection = samplePayout({ initiatorId: 111, amount: 5000, kind: "collection" });
      await stores.payouts.create(collection);
      const moved = await stores.payouts.transition(
        collection.id,
        "confirm",
        {},
        { claimId: "c1", reserve: reservation({ payerCapXaf: 1000 }) },
      );
      expect(moved).toMatchObject({ ok: true, applied: true });
      expect(moved.ok && moved.payout.limitDay).toBeUndefined();
      expect(await usage()).toEqual({ merchant: 0, byUser: {} });
    });

    it("refuses a claim at or over the approval amount, with the record, changing nothing", async () => {
      const under = await prompt(111, 99_999);
      const at = await prompt(111, 100_000);
      const expect100k = { amountBelowXaf: 100_000 };
      const refused = await stores.payouts.transition(
        at.id,
        "confirm",
        {},
        { claimId: "c1", expect: expect100k, reserve: reservation() },
      );
      expect(refused).toEqual({ ok: false, reason: "needs_approval", payout: at });
      expect(await stores.payouts.get(at.id)).toEqual(at);
      expect(await usage()).toEqual({ merchant: 0, byUser: {} });
      const claimed = await stores.payouts.transition(
        under.id,
        "confirm",
        {},
        { claimId: "c2", expect: expect100k },
      );
      expect(claimed).toMatchObject({ ok: true, applied: true });
    });

    it("audits the move out of a prompt with the payout it repeats, and no other move", async () => {
      const earlier = await prompt(111, 5000);
      const again = samplePayout({ initiatorId: 222, amount: 5000, duplicateOf: earlier.id });
      await stores.payouts.create(again);
      await stores.payouts.transition(again.id, "confirm", {}, { claimId: "c1" });
      await stores.payouts.transition(again.id, "accepted", { paymentId: "pay_again" });
      const [accepted, confirmed, created] = await stores.audit.recent(3);
      expect(created).toMatchObject({ action: "prompt", payoutId: again.id });
      expect(created?.details?.duplicateOf).toBeUndefined();
      expect(confirmed).toMatchObject({ action: "confirm", details: { duplicateOf: earlier.id } });
      expect(accepted).toMatchObject({ action: "accepted", payoutId: again.id });
      expect(accepted?.details?.duplicateOf).toBeUndefined();
    });

    it("reserves once for a move asked twice under the same claim", async () => {
      const payout = await prompt(111, 5000);
      const options = { claimId: "c1", reserve: reservation({ payerCapXaf: 8000 }) };
      await stores.payouts.transition(payout.id, "confirm", {}, options);
      const again = await stores.payouts.transition(payout.id, "confirm", {}, options);
      expect(again).toMatchObject({ ok: true, applied: false });
      expect(await usage()).toEqual({ merchant: 5000, byUser: { 111: 5000 } });
    });

    it.each([
      ["an approval rejected", ["request_approval", "reject"]],
      ["an approval expired", ["request_approval", "expire"]],
      ["a payment refused", ["confirm", "refused"]],
      ["a payment failed", ["confirm", "accepted", "settle_failed"]],
      ["a payment cancelled by the operator", ["confirm", "accepted", "settle_canceled"]],
      ["an unknown payout resolved as failed", ["confirm", "lost", "resolve_failed"]],
    ] as const)("gives the amount back once for %s", async (_name, [reserving, ...rest]) => {
      const payout = await prompt(111, 5000);
      const kept = await prompt(111, 3000);
      await stores.payouts.transition(kept.id, "confirm", {}, { reserve: reservation() });
      await stores.payouts.transition(payout.id, reserving, {}, { reserve: reservation() });
      expect(await usage()).toEqual({ merchant: 8000, byUser: { 111: 8000 } });
      for (const event of rest) await stores.payouts.transition(payout.id, event);
      expect(await usage()).toEqual({ merchant: 3000, byUser: { 111: 3000 } });
      // The last move again is refused: nothing is given back twice.
      const last = rest.at(-1) ?? reserving;
      expect((await stores.payouts.transition(payout.id, last)).ok).toBe(false);
      expect(await usage()).toEqual({ merchant: 3000, byUser: { 111: 3000 } });
    });

    it("keeps the amount counted for a payout that paid, may have paid, or waits", async () => {
      const paths = [
        ["request_approval"],
        ["request_approval", "approve"],
        ["confirm", "accepted", "settle_success"],
        ["confirm", "lost"],
      ] as const;
      for (const [reserving, ...rest] of paths) {
        const payout = await prompt(111, 1000);
        await stores.payouts.transition(payout.id, reserving, {}, { reserve: reservation() });
        for (const event of rest) await stores.payouts.transition(payout.id, event);
      }
      expect(await usage()).toEqual({ merchant: 4000, byUser: { 111: 4000 } });
    });

    it("gives nothing back for a payout that reserved nothing", async () => {
      const counted = await prompt(111, 2000);
      await stores.payouts.transition(counted.id, "confirm", {}, { reserve: reservation() });
      const cancelled = await prompt(111, 5000);
      await stores.payouts.transition(cancelled.id, "cancel");
      const unreserved = await prompt(111, 5000);
      await stores.payouts.transition(unreserved.id, "confirm");
      await stores.payouts.transition(unreserved.id, "refused");
      expect(await usage()).toEqual({ merchant: 2000, byUser: { 111: 2000 } });
    });

    it("lists the payouts awaiting approval as they come and go", async () => {
      const waiting = await payoutIn(stores, "awaiting_approval");
      const decided = await payoutIn(stores, "awaiting_approval");
      await payoutIn(stores, "awaiting_confirmation");
      await stores.payouts.transition(decided.id, "approve", {}, { claimId: "a1" });
      const ids = (await stores.payouts.listInState("awaiting_approval")).map((p) => p.id);
      expect(ids).toEqual([waiting.id]);
      expect(await stores.payouts.idsInState("awaiting_approval")).toEqual([waiting.id]);
    });

    it("lists the payouts to a number since a time, newest first, in pages, whatever their state", async () => {
      const base = Date.now();
      const old = samplePayout({ createdAtMs: base - 60_000 });
      const recent = samplePayout({ createdAtMs: base - 1000, initiatorId: 222 });
      const newest = samplePayout({ createdAtMs: base });
      const elsewhere = samplePayout({
        createdAtMs: base,
        phone: "237690000001",
        operator: "orange",
      });
      for (const payout of [old, recent, newest, elsewhere]) await stores.payouts.create(payout);
      await stores.payouts.transition(recent.id, "cancel");

      const page = { sinceMs: base - 30_000, offset: 0, limit: 10 };
      const found = await stores.payouts.listByPhone("237670000001", page);
      expect(found.map((p) => [p.id, p.state])).toEqual([
        [newest.id, "awaiting_confirmation"],
        [recent.id, "cancelled"],
      ]);
      const second = { ...page, offset: 1, limit: 1 };
      expect((await stores.payouts.listByPhone("237670000001", second)).map((p) => p.id)).toEqual([
        recent.id,
      ]);
      expect(await stores.payouts.listByPhone("237650000009", { ...page, sinceMs: 0 })).toEqual([]);
    });

    it("answers the duplicate rule's question: the newest counted payout of this amount and kind to the number", async () => {
      const base = Date.now();
      const make = async (overrides: Partial<Payout>, events: PayoutEvent[] = []) => {
        const payout = samplePayout(overrides);
        await stores.payouts.create(payout);
        for (const event of events) {
          await stores.payouts.transition(payout.id, event, {}, { claimId: `c-${payout.id}` });
        }
        return payout;
      };
      const tooOld = await make({ createdAtMs: base - 60_000 }, ["confirm"]);
      const paid = await make({ createdAtMs: base - 5000 }, ["confirm"]);
      const cancelled = await make({ createdAtMs: base - 4000 }, ["cancel"]);
      await make({ createdAtMs: base - 3000, amount: 6000 }, ["confirm"]);
      await make({ createdAtMs: base - 2500, kind: "collection" }, ["confirm"]);
      const row = await make({ id: `b1-${base}`, createdAtMs: base - 2000 }, ["confirm"]);
      const prompt = await make({ createdAtMs: base - 1000 });
      const query = {
        phone: "237670000001",
        amount: 5000,
        kind: "disbursement" as const,
        sinceMs: base - 30_000,
        lookback: 100,
        excludedStates: ["awaiting_confirmation", "cancelled"] as const,
      };

      expect((await stores.payouts.latestRepeat(query))?.id).toBe(row.id);
      const skipping = { ...query, skipIdPrefix: "b1-" };
      expect((await stores.payouts.latestRepeat(skipping))?.id).toBe(paid.id);
      expect(await stores.payouts.latestRepeat({ ...skipping, skipId: paid.id })).toBeNull();
      // The prompt counts once its state is not excluded; only the newest `lookback` are read.
      const all = { ...query, excludedStates: [] };
      expect((await stores.payouts.latestRepeat(all))?.id).toBe(prompt.id);
      expect(await stores.payouts.latestRepeat({ ...skipping, lookback: 3 })).toBeNull();
      // Before `sinceMs`: not looked at; from the start of time, the older one is found.
      const notPaid = { ...skipping, skipId: paid.id };
      expect((await stores.payouts.latestRepeat({ ...notPaid, sinceMs: 0 }))?.id).toBe(tooOld.id);
      const cancelledCounts = { ...notPaid, excludedStates: ["awaiting_confirmation" as const] };
      expect(await stores.payouts.latestRepeat(cancelledCounts)).toMatchObject({
        id: cancelled.id,
        state: "cancelled",
      });
      expect(await stores.payouts.latestRepeat({ ...query, phone: "237650000009" })).toBeNull();
    });

    it("makes a new payout its initiator's open prompt in the chat, answering the one it replaced", async () => {
      const first = samplePayout({ chatId: 5, initiatorId: 111 });
      const second = samplePayout({ chatId: 5, initiatorId: 111 });
      const theirs = samplePayout({ chatId: 5, initiatorId: 222 });
      expect(await stores.payouts.create(first)).toEqual({ replaced: null });
      await stores.payouts.transition(first.id, "confirm", {}, { claimId: "c1" });
      expect(await stores.payouts.create(second)).toEqual({
        replaced: { id: first.id, state: "submitting" },
      });
      expect(await stores.payouts.create(theirs)).toEqual({ replaced: null });
      expect(await stores.payouts.openPrompt(5, 111)).toBe(second.id);
      expect(await stores.payouts.openPrompt(5, 222)).toBe(theirs.id);
      expect(await stores.payouts.openPrompt(6, 111)).toBeNull();
      const third = samplePayout({ chatId: 5, initiatorId: 111 });
      expect(await stores.payouts.create(third)).toEqual({
        replaced: { id: second.id, state: "awaiting_confirmation" },
      });
    });

    it("forgets an open prompt when its record is forgotten", async () => {
      // Expired just under the grace ago: about 300 ms of life left.
      const expiresAtMs = Date.now() - PROMPT_GRACE_MS + 300;
      const prompt = samplePayout({ chatId: 5, initiatorId: 111, expiresAtMs });
      await stores.payouts.create(prompt);
      expect(await stores.payouts.openPrompt(5, 111)).toBe(prompt.id);
      await harness.elapse(700);
      expect(await stores.payouts.openPrompt(5, 111)).toBeNull();
      expect(await stores.payouts.create(samplePayout({ chatId: 5, initiatorId: 111 }))).toEqual({
        replaced: null,
      });
    });

    it("remembers the approval cards of a payout and which payout a card is about", async () => {
      await stores.cards.add("po-1", { chatId: 300, messageId: 7 });
      await stores.cards.add("po-1", { chatId: 100, messageId: 9 });
      await stores.cards.add("po-1", { chatId: 100, messageId: 9 });
      await stores.cards.add("po-2", { chatId: 100, messageId: 10 });
      expect(await stores.cards.list("po-1")).toEqual([
        { chatId: 100, messageId: 9 },
        { chatId: 300, messageId: 7 },
      ]);
      expect(await stores.cards.payoutOf({ chatId: 100, messageId: 10 })).toBe("po-2");
      expect(await stores.cards.payoutOf({ chatId: 300, messageId: 9 })).toBeNull();
      expect(await stores.cards.list("po-none")).toEqual([]);
    });
  });

  describe("approval cards kept for the stores' card lifetime", () => {
    const harness = storesPerTest(makeStores, 600_000, { approvalCardTtlMs: 300 });

    it("forgets approval cards after their time", async () => {
      const { stores } = harness;
      await stores.cards.add("po-1", { chatId: 300, messageId: 7 });
      expect(await stores.cards.list("po-1")).toEqual([{ chatId: 300, messageId: 7 }]);
      await harness.elapse(500);
      expect(await stores.cards.list("po-1")).toEqual([]);
      expect(await stores.cards.payoutOf({ chatId: 300, messageId: 7 })).toBeNull();
    });
  });
}
