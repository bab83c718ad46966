/**
 * The PayoutStore part of the store contract (see stores.contract.ts). The lifecycle
 * table drives the transition cases, so a new state or event is covered without edits.
 */
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import {
  PAYOUT_EVENTS,
  PAYOUT_STATES,
  type PayoutEvent,
  type PayoutState,
  settleEventFor,
  TRANSITIONS,
} from "../../src/model/lifecycle.js";
import type { Payout } from "../../src/model/payout.js";
import { PayoutExistsError } from "../../src/store/errors.js";
import { PROMPT_GRACE_MS } from "../../src/store/payout-codec.js";
import { payoutsInState } from "../../src/store/payout-store.js";
import { callbackRereadName, type Stores } from "../../src/store/types.js";
import { settledKey } from "../support/payouts.js";
import { sampleRecipient } from "./recipient-store.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

/** A valid payout awaiting confirmation, with a fresh id. */
export function samplePayout(overrides: Partial<Payout> = {}): Payout {
  const nowMs = Date.now();
  return {
    id: `po_${randomUUID().replaceAll("-", "")}`,
    kind: "disbursement",
    state: "awaiting_confirmation",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean Dupont",
    amount: 5000,
    initiatorId: 111,
    chatId: -1001234567890123,
    locale: "fr",
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + 300_000,
    ...overrides,
  };
}

/** The shortest list of events that leads from `awaiting_confirmation` to `state`. */
export function pathTo(state: PayoutState): PayoutEvent[] {
  const paths = new Map<PayoutState, PayoutEvent[]>([["awaiting_confirmation", []]]);
  const queue: PayoutState[] = ["awaiting_confirmation"];
  for (let from = queue.shift(); from !== undefined; from = queue.shift()) {
    for (const [event, to] of Object.entries(TRANSITIONS[from])) {
      const known = PAYOUT_EVENTS.find((name) => name === event);
      if (!known || !to || paths.has(to)) continue;
      paths.set(to, [...(paths.get(from) ?? []), known]);
      queue.push(to);
    }
  }
  const path = paths.get(state);
  if (!path) throw new Error(`${state} cannot be reached`);
  return path;
}

/** Stores a batch of `initiatorId` that runs (its rows may be claimed). */
export async function runningBatch(stores: Stores, id: string, initiatorId = 111): Promise<void> {
  const nowMs = Date.now();
  const batch = {
    id,
    state: "running" as const,
    initiatorId,
    initiatorRole: "payer" as const,
    chatId: initiatorId,
    locale: "en" as const,
    fileName: "couriers.csv",
    rowCount: 2,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    checkedRows: 2,
    doneRows: 0,
  };
  await stores.batches.create(batch, [], { id: initiatorId, role: "payer" });
}

/** Creates a payout and moves it to `state` through the lifecycle. */
export async function payoutIn(
  stores: Stores,
  state: PayoutState,
  overrides: Partial<Payout> = {},
): Promise<Payout> {
  const payout = samplePayout(overrides);
  await stores.payouts.create(payout);
  for (const event of pathTo(state)) {
    const result = await stores.payouts.transition(payout.id, event);
    if (!result.ok) throw new Error(`could not ${event} ${payout.id}: ${result.reason}`);
  }
  const moved = await stores.payouts.get(payout.id);
  if (!moved) throw new Error(`${payout.id} vanished`);
  return moved;
}

export function describePayoutStoreContract(makeStores: MakeStores): void {
  describe("payouts", () => {
    const harness = storesPerTest(makeStores, 600_000);
    let stores: Stores;

    beforeEach(() => {
      stores = harness.stores;
    });
    /** A shared limit's key of this test's own, in the stores' slot. */
    const limitKey = (name: string) => `${harness.keyPrefix ?? ""}${name}:${randomUUID()}`;

    it("counts a press in the move's own step: over the limit nothing moves, a resend is not counted", async () => {
      const payout = samplePayout();
      await stores.payouts.create(payout);
      const press = { name: `press:${randomUUID()}`, limit: 2, windowMs: 60_000 };
      // One press of the limit's two already counted by the access step's counter.
      expect(await stores.throttles.take(press.name, press.limit, press.windowMs)).toBe(true);

      const claimed = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", press },
      );
      expect(claimed).toMatchObject({ ok: true, applied: true });
      // A resend of the claim made finds it made, and counts nothing more.
      const resent = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", press },
      );
      expect(resent).toMatchObject({ ok: true, applied: false });
      // The counter is the access step's: the claim's press was its second.
      expect(await stores.throttles.take(press.name, press.limit, press.windowMs)).toBe(false);

      const other = samplePayout();
      await stores.payouts.create(other);
      const refused = await stores.payouts.transition(
        other.id,
        "confirm",
        {},
        { claimId: "c2", press },
      );
      expect(refused).toEqual({ ok: false, reason: "throttled" });
      expect((await stores.payouts.get(other.id))?.state).toBe("awaiting_confirmation");
      // Over the limit even on a payout that does not exist: counted before anything is read.
      const missing = await stores.payouts.transition("po_missing", "confirm", {}, { press });
      expect(missing).toEqual({ ok: false, reason: "throttled" });
    });

    it("audits a creation, each move made with its actor and states, and a submission", async () => {
      const payer = { id: 111, role: "payer" } as const;
      const payout = samplePayout();
      await stores.payouts.create(payout, { actor: payer });
      await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1", actor: payer });
      await stores.payouts.markSending(payout.id, "c1", { actor: payer });
      await stores.payouts.transition(
        payout.id,
        "accepted",
        { paymentId: `pay-${payout.id}` },
        { auditDetails: { paymentId: `pay-${payout.id}` } },
      );
      const entries = (await stores.audit.recent(10)).reverse();
      expect(entries.map((entry) => entry.action)).toEqual([
        "prompt",
        "confirm",
        "submit",
        "accepted",
      ]);
      for (const entry of entries) {
        expect(entry).toMatchObject({ payoutId: payout.id, amount: 5000, phone: "23767••••001" });
        expect(entry.id).toEqual(expect.any(String));
      }
      expect(entries[0]).toMatchObject({
        actorId: 111,
        actorRole: "payer",
        to: "awaiting_confirmation",
      });
      expect(entries[0]?.from).toBeUndefined();
      expect(entries[1]).toMatchObject({
        actorId: 111,
        from: "awaiting_confirmation",
        to: "submitting",
      });
      expect(entries[2]).toMatchObject({ actorId: 111, actorRole: "payer" });
      expect(entries[3]).toMatchObject({
        actorId: 0,
        actorRole: "system",
        from: "submitting",
        to: "pending",
        details: { paymentId: `pay-${payout.id}` },
      });
    });

    it("checks a claim's initiator and expiry in the same step, changing nothing when they fail", async () => {
      const payout = samplePayout({ initiatorId: 111 });
      await stores.payouts.create(payout);
      const other = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", expect: { initiatorId: 222 } },
      );
      expect(other).toMatchObject({
        ok: false,
        reason: "not_initiator",
        payout: { id: payout.id },
      });
      const late = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", expect: { initiatorId: 111, notExpiredAtMs: payout.expiresAtMs + 1 } },
      );
      expect(late).toMatchObject({ ok: false, reason: "expired" });
      expect(await stores.payouts.get(payout.id)).toEqual(payout);
      const inTime = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", expect: { initiatorId: 111, notExpiredAtMs: payout.expiresAtMs } },
      );
      expect(inTime).toMatchObject({ ok: true, payout: { state: "submitting" } });
    });

    it("stamps the send time and schedules the first poll in the step of the move", async () => {
      const payout = await payoutIn(stores, "awaiting_confirmation");
      const claimed = await stores.payouts.transition(
        payout.id,
        "confirm",
        {},
        { claimId: "c1", stampSentAtMs: true },
      );
      expect(claimed.ok && claimed.payout.sentAtMs).toBeGreaterThan(0);
      // The request leaves right after such a move: its submission is audited with it.
      const [submit, confirm] = await stores.audit.recent(2);
      expect([confirm?.action, submit?.action]).toEqual(["confirm", "submit"]);
      expect(submit).toMatchObject({ payoutId: payout.id, amount: payout.amount });
      expect(await stores.tracking.dueAt(payout.id)).toBeNull();
      await stores.payouts.transition(
        payout.id,
        "accepted",
        { paymentId: `pay-${payout.id}` },
        { trackAtMs: 123_456 },
      );
      expect(await stores.tracking.dueAt(payout.id)).toBe(123_456);
    });

    it("takes a rate-limit slot with a claim, only when the claim is made", async () => {
      // Each run its own limit (a store's slots outlive it in a shared Redis for a window).
      const slot = { key: limitKey("test-limit"), limit: 1, windowMs: 60_000 };
      const first = await payoutIn(stores, "awaiting_confirmation");
      const second = await payoutIn(stores, "awaiting_confirmation");
      const claim = (id: string, claimId: string, expect = {}) =>
        stores.payouts.transition(id, "confirm", {}, { claimId, slot, expect });
      // Refused (not its initiator): nothing moves, no slot is taken.
      const refused = await claim(first.id, "c0", { initiatorId: first.initiatorId + 1 });
      expect(refused).toMatchObject({ ok: false, reason: "not_initiator" });
      expect(await claim(first.id, "c1")).toMatchObject({ ok: true, slotTaken: true });
      // A resend of the same claim finds it made and says nothing of the slot.
      const resent = await claim(first.id, "c1");
      expect(resent).toMatchObject({ ok: true, applied: false });
      expect(resent.ok && resent.slotTaken).toBeUndefined();
      // The limit is full now: the claim is still made, without its slot.
      const full = await claim(second.id, "c2");
      expect(full).toMatchObject({ ok: true, applied: true, slotTaken: false });
      expect(full.ok && full.payout.state).toBe("submitting");
      // Without a slot asked, none is mentioned.
      const third = await payoutIn(stores, "awaiting_confirmation");
      const plain = await stores.payouts.transition(third.id, "confirm", {}, { claimId: "c3" });
      expect(plain.ok && "slotTaken" in plain).toBe(false);
    });

    it("takes background work's slot within its own share and the whole limit", async () => {
      // Limit 2, background work's share 1: a person's grant does not count in that share.
      const key = limitKey("test-limit");
      const person = { key, limit: 2, windowMs: 60_000 };
      const work = { ...person, backgroundLimit: 1 };
      const claim = async (slot: typeof person) => {
        const payout = await payoutIn(stores, "awaiting_confirmation");
        const claimId = randomUUID();
        return stores.payouts.transition(payout.id, "confirm", {}, { claimId, slot });
      };
      expect(await claim(person)).toMatchObject({ ok: true, slotTaken: true });
      expect(await claim(work)).toMatchObject({ ok: true, slotTaken: true });
      // Both full now: background work's share, and the whole limit for a person.
      expect(await claim(work)).toMatchObject({ ok: true, slotTaken: false });
      expect(await claim(person)).toMatchObject({ ok: true, slotTaken: false });
      // A callback's re-read as background work: refused once its share is taken, though
      // the whole limit has room.
      const reread = { ...work, key: limitKey("test-limit") };
      expect(await claim(reread)).toMatchObject({ ok: true, slotTaken: true });
      const payout = await payoutIn(stores, "pending");
      await stores.payouts.update(payout.id, { paymentId: `pay-${payout.id}` });
      const admitted = await stores.callbacks.admit(`pay-${payout.id}`, {
        spacingMs: 60_000,
        leaseMs: 60_000,
        owner: "a",
        request: reread,
      });
      expect(admitted).toMatchObject({ outcome: "admitted", requestSlot: false });
    });

    it("notes a saved number's last-paid time with a move into success, and only then", async () => {
      await stores.recipients.put("jean", sampleRecipient(), 0);
      const phone = sampleRecipient().phone;
      const lastPaid = async () =>
        (await stores.recipients.list()).find((r) => r.phone === phone)?.lastPaidAtMs;
      const settle = (id: string, status: "success" | "failed", atMs: number, notePhone = phone) =>
        stores.payouts.transition(
          id,
          settleEventFor(status),
          { apiStatus: status, settledAtMs: atMs },
          { untrack: true, notePaid: { phone: notePhone, atMs } },
        );
      const paid = await payoutIn(stores, "pending", { phone });
      // A move refused notes nothing; neither does a failure.
      const early = await payoutIn(stores, "awaiting_confirmation", { phone });
      expect(await settle(early.id, "success", 1_764_000_000_000)).toMatchObject({ ok: false });
      const failed = await payoutIn(stores, "pending", { phone });
      expect(await settle(failed.id, "failed", 1_764_000_050_000)).toMatchObject({ ok: true });
      expect(await lastPaid()).toBeUndefined();
      expect(await settle(paid.id, "success", 1_764_000_100_000)).toMatchObject({ ok: true });
      expect(await lastPaid()).toBe(1_764_000_100_000);
      // A number not saved is not saved by it.
      const other = "237690000009";
      const unsaved = await payoutIn(stores, "pending", { phone: other, operator: "orange" });
      expect(await settle(unsaved.id, "success", 1_764_000_200_000, other)).toMatchObject({
        ok: true,
      });
      expect(await stores.recipients.isSaved(other)).toBe(false);
      expect(await lastPaid()).toBe(1_764_000_100_000);
    });

    it("takes a settled payout off the poll schedule in the move itself, and only if made", async () => {
      const payout = await payoutIn(stores, "awaiting_confirmation");
      await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1" });
      await stores.payouts.transition(
        payout.id,
        "accepted",
        { paymentId: `pay-${payout.id}` },
        { trackAtMs: 123_456 },
      );
      // A move refused (not from this state) leaves the schedule as it was.
      const refused = await stores.payouts.transition(payout.id, "confirm", {}, { untrack: true });
      expect(refused.ok).toBe(false);
      expect(await stores.tracking.dueAt(payout.id)).toBe(123_456);
      const settled = await stores.payouts.transition(
        payout.id,
        settleEventFor("success"),
        { apiStatus: "success" },
        { untrack: true },
      );
      expect(settled.ok && settled.payout.state).toBe("success");
      expect(await stores.tracking.dueAt(payout.id)).toBeNull();
    });

    it("audits nothing for a move refused or resent, so no entry is invented", async () => {
      const payout = await payoutIn(stores, "awaiting_confirmation");
      const before = (await stores.audit.recent(100)).length;
      expect((await stores.payouts.transition(payout.id, "accepted")).ok).toBe(false);
      await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1" });
      await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1" });
      expect((await stores.payouts.transition("no-such-payout", "cancel")).ok).toBe(false);
      const entries = await stores.audit.recent(100);
      expect(entries).toHaveLength(before + 1);
      expect(entries[0]?.action).toBe("confirm");
    });

    it("returns a stored payout exactly as created, every field included", async () => {
      const payout = samplePayout({
        note: 'Loyer <b>mars</b> & "prime" — Zoë 🎉',
        messageId: 42,
        claimId: "claim-0",
        submittedAtMs: 1_700_000_000_123,
        paymentId: `pay_${randomUUID()}`,
        apiStatus: "pending",
        fee: 150,
        errorMessage: "<timeout> après 15 s",
        errorStatusCode: 504,
        settledAtMs: 1_700_000_000_456,
        resolvedBy: 9_007_199_254_740_991,
        notifiedAtMs: 1_700_000_000_789,
        stuckReportedAtMs: 1_700_000_001_000,
        pollCount: 3,
      });
      await stores.payouts.create(payout);
      expect(await stores.payouts.get(payout.id)).toEqual(payout);
    });

    it("returns null for an id it never stored", async () => {
      expect(await stores.payouts.get("po_never_stored")).toBeNull();
    });

    it("refuses to create a payout whose id is taken, and keeps the first", async () => {
      const first = samplePayout();
      await stores.payouts.create(first);
      await expect(stores.payouts.create({ ...first, amount: 999_999 })).rejects.toThrow(
        PayoutExistsError,
      );
      expect(await stores.payouts.get(first.id)).toEqual(first);
    });

    it("refuses a payout that is not valid and stores nothing", async () => {
      const invalid = samplePayout({ amount: -5 });
      await expect(stores.payouts.create(invalid)).rejects.toThrow(/amount/);
      expect(await stores.payouts.get(invalid.id)).toBeNull();
    });

    describe.each(PAYOUT_STATES)("from %s", (state) => {
      it("applies exactly the events the lifecycle table allows", async () => {
        for (const event of PAYOUT_EVENTS) {
          const payout = await payoutIn(stores, state);
          const result = await stores.payouts.transition(payout.id, event);
          const target = TRANSITIONS[state][event];
          if (target) {
            expect(result, `${state} --${event}-->`).toMatchObject({ ok: true, applied: true });
            expect((await stores.payouts.get(payout.id))?.state).toBe(target);
          } else {
            expect(result, `${state} --${event}--> refused`).toEqual({
              ok: false,
              reason: "wrong_state",
              payout,
            });
            expect(await stores.payouts.get(payout.id)).toEqual(payout);
          }
        }
      });
    });

    it("answers not_found for a move of an unknown payout", async () => {
      expect(await stores.payouts.transition("po_never_stored", "confirm")).toEqual({
        ok: false,
        reason: "not_found",
      });
    });

    it("merges the patch and sets updatedAtMs on a move", async () => {
      const payout = await payoutIn(stores, "submitting");
      const result = await stores.payouts.transition(payout.id, "accepted", {
        paymentId: "pay_merge",
        fee: 75,
        apiStatus: "pending",
      });
      expect(result.ok && result.payout).toMatchObject({
        state: "pending",
        paymentId: "pay_merge",
        fee: 75,
        amount: payout.amount,
      });
      expect(result.ok && result.payout.updatedAtMs).toBeGreaterThanOrEqual(payout.updatedAtMs);
      expect(await stores.payouts.get(payout.id)).toEqual(result.ok && result.payout);
    });

    it("refuses a patch that is not valid and changes nothing", async () => {
      const payout = await payoutIn(stores, "submitting");
      await expect(
        stores.payouts.transition(payout.id, "accepted", { amount: 1.5 }),
      ).rejects.toThrow(/amount/);
      expect(await stores.payouts.get(payout.id)).toEqual(payout);
    });

    it("is idempotent for the same claimant and refuses another", async () => {
      const payout = await payoutIn(stores, "awaiting_confirmation");
      const first = await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "a" });
      expect(first).toMatchObject({ ok: true, applied: true, payout: { claimId: "a" } });
      const again = await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "a" });
      expect(again).toEqual({
        ok: true,
        applied: false,
        durable: true,
        payout: first.ok && first.payout,
      });
      const other = await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "b" });
      expect(other).toMatchObject({ ok: false, reason: "wrong_state", payout: { claimId: "a" } });
    });

    it("lets exactly one of 50 concurrent confirmations through", async () => {
      const payout = await payoutIn(stores, "awaiting_confirmation");
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          stores.payouts.transition(payout.id, "confirm", {}, { claimId: `tap-${index}` }),
        ),
      );
      const winners = results.filter((result) => result.ok && result.applied);
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => !result.ok)).toHaveLength(49);
      const stored = await stores.payouts.get(payout.id);
      expect(stored?.claimId).toBe(winners[0]?.ok && winners[0].payout.claimId);
      expect(await stores.payouts.listInState("submitting")).toHaveLength(1);
    });

    it("gives one payment id to one payout: of two concurrent moves that name it, one wins", async () => {
      const first = await payoutIn(stores, "unknown");
      const second = await payoutIn(stores, "unknown");
      const results = await Promise.all(
        [first, second].map((payout) =>
          stores.payouts.transition(payout.id, "resolve_with_id", { paymentId: "pay-shared" }),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      const loser = results.find((result) => !result.ok);
      expect(loser).toMatchObject({ ok: false, reason: "payment_taken" });
      expect(loser && !loser.ok && "payout" in loser && loser.payout.state).toBe("unknown");
      const owner = await stores.payouts.findByPaymentId("pay-shared");
      expect([first.id, second.id]).toContain(owner?.id);
      const other = owner?.id === first.id ? second : first;
      expect((await stores.payouts.get(other.id))?.paymentId).toBeUndefined();
    });

    it("forgets an unconfirmed prompt once its button expired plus the grace, not after the retention", async () => {
      // Expired just under the grace ago: about 300 ms of life left, far from the retention.
      const expiresAtMs = Date.now() - PROMPT_GRACE_MS + 300;
      const forgotten = samplePayout({ expiresAtMs });
      const confirmed = samplePayout({ expiresAtMs });
      await stores.payouts.create(forgotten);
      await stores.payouts.create(confirmed);
      const claimed = await stores.payouts.transition(
        confirmed.id,
        "confirm",
        {},
        { claimId: "c" },
      );
      expect(claimed.ok).toBe(true);

      await harness.elapse(700);

      expect(await stores.payouts.get(forgotten.id)).toBeNull();
      expect((await stores.payouts.get(confirmed.id))?.state).toBe("submitting");
    });

    it("queues exactly one notification when two settlements race", async () => {
      const payout = await payoutIn(stores, "pending");
      const results = await Promise.all([
        stores.payouts.transition(payout.id, "settle_success"),
        stores.payouts.transition(payout.id, "settle_failed"),
        stores.payouts.transition(payout.id, "settle_success"),
      ]);
      expect(results.filter((result) => result.ok && result.applied)).toHaveLength(1);
      expect(await stores.outbox.size()).toBe(1);
      expect(await stores.outbox.claimDue(Date.now() + 60_000, 10, 1000)).toEqual([
        settledKey(payout.id),
      ]);
    });

    it("takes a callback re-read's cap and request slots with its admission, none when refused", async () => {
      const cap = { key: limitKey("test-cap"), limit: 1, windowMs: 60_000 };
      const request = { key: limitKey("test-limit"), limit: 1, windowMs: 60_000 };
      const options = { spacingMs: 60_000, leaseMs: 60_000, cap, request };
      const pendingWithId = async () => {
        const payout = await payoutIn(stores, "pending");
        await stores.payouts.update(payout.id, { paymentId: `pay-${payout.id}` });
        return payout;
      };
      const first = await pendingWithId();
      const admitted = await stores.callbacks.admit(`pay-${first.id}`, { ...options, owner: "a" });
      expect(admitted).toMatchObject({ outcome: "admitted", requestSlot: true });
      // Spaced: refused before any slot is looked at (the next one still finds the cap full).
      const spaced = await stores.callbacks.admit(`pay-${first.id}`, { ...options, owner: "b" });
      expect(spaced.outcome).toBe("spaced");
      // The cap is full: refused, and the re-read's lease is not held.
      const second = await pendingWithId();
      const capped = await stores.callbacks.admit(`pay-${second.id}`, { ...options, owner: "c" });
      expect(capped.outcome).toBe("over_cap");
      expect(await stores.leases.acquire(callbackRereadName(second.id), "d", 1000)).toBe(true);
      // A free cap with a full request limit: admitted, without the request's slot.
      const third = await pendingWithId();
      const freeCap = { ...cap, key: limitKey("test-cap") };
      const late = await stores.callbacks.admit(`pay-${third.id}`, {
        ...options,
        cap: freeCap,
        owner: "e",
      });
      expect(late).toMatchObject({ outcome: "admitted", requestSlot: false });
    });

    it("admits one callback re-read of a pending payout at a time and per spacing", async () => {
      const payout = await payoutIn(stores, "pending");
      const paymentId = `pay-${payout.id}`;
      await stores.payouts.update(payout.id, { paymentId });
      const options = { spacingMs: 60_000, leaseMs: 60_000 };
      const first = await stores.callbacks.admit(paymentId, { ...options, owner: "a" });
      expect(first.outcome).toBe("admitted");
      expect(first.outcome !== "unknown" && first.payout.id).toBe(payout.id);
      // Within the spacing: refused, whoever asks.
      const second = await stores.callbacks.admit(paymentId, { ...options, owner: "b" });
      expect(second.outcome).toBe("spaced");
      // The lease is the one `leases` knows by that name: another owner cannot take it.
      const name = callbackRereadName(payout.id);
      expect(await stores.leases.acquire(name, "c", 1000)).toBe(false);
      await stores.leases.release(name, "a");
      expect(await stores.leases.acquire(name, "c", 1000)).toBe(true);
      expect((await stores.callbacks.admit("pay-nobody", { ...options, owner: "d" })).outcome).toBe(
        "unknown",
      );
      await stores.payouts.transition(payout.id, "settle_success");
      expect((await stores.callbacks.admit(paymentId, { ...options, owner: "d" })).outcome).toBe(
        "not_pending",
      );
    });

    it("claims a payer's notice with its payout as the move left it, in one step", async () => {
      const payout = await payoutIn(stores, "pending");
      await stores.payouts.transition(payout.id, "settle_success");
      await stores.outbox.schedule("digest:2026-01-01", Date.now() + 1);
      const later = Date.now() + 60_000;
      const claimed = await stores.outbox.claimNext(later, 1000);
      expect(claimed?.key).toBe(settledKey(payout.id));
      expect(claimed?.payout).toMatchObject({ id: payout.id, state: "success" });
      // Its number is not in the address book (read in the same step).
      expect(claimed?.numberSaved).toBe(false);
      // Claimed as claimDue claims: hidden until its lease ends.
      expect(await stores.outbox.dueAt(settledKey(payout.id))).toBe(later + 1000);
      // Another kind of notice comes without a payout; nothing due, nothing.
      expect(await stores.outbox.claimNext(later, 1000)).toEqual({ key: "digest:2026-01-01" });
      expect(await stores.outbox.claimNext(later, 1000)).toBeNull();
      // A payer's notice whose payout is gone comes with null.
      await stores.outbox.schedule(settledKey("gone"), Date.now());
      expect(await stores.outbox.claimNext(later, 1000)).toEqual({
        key: settledKey("gone"),
        payout: null,
      });
      // Once its number is saved, the claim says so.
      const saved = sampleRecipient({ phone: payout.phone, alias: `a${payout.id.slice(0, 8)}` });
      expect((await stores.recipients.put(saved.alias, saved, 0)).outcome).toBe("written");
      await stores.outbox.schedule(settledKey(payout.id), Date.now());
      const again = await stores.outbox.claimNext(later + 2000, 1000);
      expect(again).toMatchObject({ key: settledKey(payout.id), numberSaved: true });
    });

    it("queues no payer's notice for a batch's row (its batch tells the payer), but does for others", async () => {
      await runningBatch(stores, "batch01");
      const row = await payoutIn(stores, "pending", { batchId: "batch01" });
      await stores.payouts.transition(row.id, "settle_failed");
      expect((await stores.payouts.get(row.id))?.state).toBe("failed");
      expect(await stores.outbox.size()).toBe(0);
      const single = await payoutIn(stores, "pending");
      await stores.payouts.transition(single.id, "settle_success");
      expect(await stores.outbox.claimDue(Date.now() + 60_000, 10, 1000)).toEqual([
        settledKey(single.id),
      ]);
    });

    it("queues no notification for a move that settles nothing", async () => {
      await payoutIn(stores, "pending");
      await payoutIn(stores, "unknown");
      await payoutIn(stores, "rejected_by_api");
      await payoutIn(stores, "cancelled");
      expect(await stores.outbox.size()).toBe(0);
    });

    it("finds a payout by its payment id", async () => {
      const payout = await payoutIn(stores, "submitting");
      await stores.payouts.transition(payout.id, "accepted", { paymentId: "pay_find_me" });
      expect((await stores.payouts.findByPaymentId("pay_find_me"))?.id).toBe(payout.id);
      expect(await stores.payouts.findByPaymentId("pay_nobody")).toBeNull();
    });

    it("lists a user's payouts and everyone's, newest first, in pages", async () => {
      const base = Date.now();
      const mine = Array.from({ length: 5 }, (_, index) =>
        samplePayout({ initiatorId: 7, createdAtMs: base + index }),
      );
      const theirs = [8, 9].map((userId, index) =>
        samplePayout({ initiatorId: userId, createdAtMs: base + 10 + index }),
      );
      for (const payout of [...mine, ...theirs]) await stores.payouts.create(payout);
      const ids = (items: Payout[]) => items.map((payout) => payout.id);
      const newestMine = ids(mine).reverse();

      const page1 = await stores.payouts.list({ userId: 7, offset: 0, limit: 2 });
      const page3 = await stores.payouts.list({ userId: 7, offset: 4, limit: 2 });
      expect({ ids: ids(page1.items), total: page1.total }).toEqual({
        ids: newestMine.slice(0, 2),
        total: 5,
      });
      expect(ids(page3.items)).toEqual(newestMine.slice(4));
      const everyone = await stores.payouts.list({ offset: 0, limit: 10 });
      expect(ids(everyone.items)).toEqual([...ids(theirs).reverse(), ...newestMine]);
      expect(everyone.total).toBe(7);
      expect(await stores.payouts.list({ userId: 404, offset: 0, limit: 5 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it("walks the payouts in a state page by page, each one once", async () => {
      const made = await Promise.all(
        Array.from({ length: 300 }, () => payoutIn(stores, "pending")),
      );
      await payoutIn(stores, "unknown");
      const pages: Payout[][] = [];
      for await (const page of payoutsInState(stores.payouts, "pending", 50)) pages.push(page);

      expect(pages.length).toBeGreaterThan(1);
      const walked = pages.flat().map((payout) => payout.id);
      expect(walked.sort()).toEqual(made.map((payout) => payout.id).sort());
      expect(pages.flat().every((payout) => payout.state === "pending")).toBe(true);
      const first = await stores.payouts.pageInState("pending", { limit: 50 });
      expect(first.next).toBeDefined();
      expect(first.items.length).toBeLessThan(300);
    });

    it("lists the payouts in an in-flight state as they move in and out", async () => {
      // Both ways of asking must agree at every step.
      const listed = async (state: "submitting" | "pending" | "unknown") => {
        const fromRecords = (await stores.payouts.listInState(state)).map((p) => p.id).sort();
        expect((await stores.payouts.idsInState(state)).sort()).toEqual(fromRecords);
        return fromRecords;
      };
      const a = await payoutIn(stores, "submitting");
      const b = await payoutIn(stores, "submitting");
      expect(await listed("submitting")).toEqual([a.id, b.id].sort());
      await stores.payouts.transition(a.id, "accepted");
      await stores.payouts.transition(b.id, "lost");
      expect(await listed("submitting")).toEqual([]);
      expect(await listed("pending")).toEqual([a.id]);
      expect(await listed("unknown")).toEqual([b.id]);
      await stores.payouts.transition(b.id, "resolve_with_id", { paymentId: "pay_b" });
      await stores.payouts.transition(a.id, "settle_success");
      expect(await listed("pending")).toEqual([b.id]);
      expect(await listed("unknown")).toEqual([]);
    });

    it("counts the payouts in each tracked state as they move in and out", async () => {
      const counted = async () => Object.fromEntries(await stores.payouts.countInStates());
      const empty = await counted();
      expect(Object.values(empty).every((count) => count === 0)).toBe(true);
      expect(Object.keys(empty)).toEqual(expect.arrayContaining(["pending", "unknown"]));
      const a = await payoutIn(stores, "pending");
      await payoutIn(stores, "pending");
      await payoutIn(stores, "unknown");
      await payoutIn(stores, "success");
      expect(await counted()).toMatchObject({ pending: 2, unknown: 1, submitting: 0 });
      await stores.payouts.transition(a.id, "settle_success");
      expect(await counted()).toMatchObject({ pending: 1, unknown: 1 });
    });

    it("updates fields without changing the state, and answers null for an unknown id", async () => {
      const payout = await payoutIn(stores, "pending");
      const updated = await stores.payouts.update(payout.id, { messageId: 77, pollCount: 2 });
      expect(updated).toEqual({ ...payout, messageId: 77, pollCount: 2 });
      expect(await stores.payouts.get(payout.id)).toEqual(updated);
      expect(await stores.payouts.update("po_never_stored", { messageId: 1 })).toBeNull();
      expect(await stores.payouts.get("po_never_stored")).toBeNull();
    });

    it("hands out copies: changing a returned payout changes nothing stored", async () => {
      const payout = samplePayout();
      await stores.payouts.create(payout);
      const copy = await stores.payouts.get(payout.id);
      if (copy) copy.amount = 1;
      payout.amount = 2;
      expect((await stores.payouts.get(payout.id))?.amount).toBe(5000);
    });
  });
}
