/**
 * The only code that sends `POST /disburse` or `POST /collect`. A payout reaches it
 * claimed: moved atomically to `submitting` under a claim id, by whoever claimed it (the
 * initiator's Confirm here; an approver's decision or a batch worker the same way). Then
 * one last atomic check, the one request, and the answer recorded. Nothing slow stands
 * between the last check and the request.
 *
 * Round trips of a Confirm: the claim, with the rate-limit slot taken in the same step
 * (only when the claim is made) where the limit is shared through the store, in one; the
 * answer recorded, and the first status poll scheduled, in one more.
 */
import { traceMark } from "../metrics/latency-trace.js";
import { type Actor, staffActor } from "../model/audit.js";
import { knownOperator, knownStatus } from "../model/payment-terms.js";
import type { Payout } from "../model/payout.js";
import type { Role } from "../model/roles.js";
import type { SharedSlot } from "../payments/rate-limiter.js";
import type { Payment } from "../payments/schemas.js";
import { randomHex } from "../random.js";
import type { TransitionResult } from "../store/types.js";
import { answerMismatch } from "./answer-check.js";
import type { AnswerRecords } from "./answer-records.js";
import type { Approval } from "./approval.js";
import type { Limits } from "./limits.js";
import { type PinProof, stepUpHold } from "./pin.js";
import { type Asker, confirmableBy, PAYING_ROLES } from "./policy.js";
import { retryPayoutWrite } from "./store-retry.js";
import type {
  ClaimedPayout,
  ClaimResult,
  ConfirmResult,
  NotClaimed,
  StepContext,
  SubmitResult,
} from "./types.js";
import { lostRace } from "./types.js";

/** The last check found the payout must not be sent: its request does not leave. */
class NotToSend extends Error {
  constructor(
    readonly current: Payout | null,
    /** The check passed but its write was not confirmed persisted (REDIS_DURABILITY). */
    readonly unconfirmed: boolean,
  ) {
    super("the payout must not be sent");
    this.name = "NotToSend";
  }
}

/** What Confirm goes through besides the move itself: approvals and the daily caps. */
export interface ConfirmRules {
  approval: Approval;
  limits: Limits;
  /** STEP_UP_THRESHOLD_XAF: at or over it, Confirm needs the initiator's PinProof. */
  stepUpThresholdXaf?: number | undefined;
}

export class Submission {
  readonly #context: StepContext;
  readonly #records: AnswerRecords;
  readonly #pollIntervalMs: number;
  readonly #rules: ConfirmRules;

  constructor(
    context: StepContext,
    records: AnswerRecords,
    statusPollIntervalMs: number,
    rules: ConfirmRules,
  ) {
    this.#context = context;
    this.#records = records;
    this.#pollIntervalMs = statusPollIntervalMs;
    this.#rules = rules;
  }

  /**
   * Confirm: the claim (`claim`), and when it is made, the one request at once. A rate-limit
   * slot is taken only once the claim is made: a press that claims nothing (a forged id, a
   * stale button, a double tap, someone who may not confirm) takes none, so presses cannot
   * use up the limit a real Confirm needs. When the slot is granted, the claim itself was
   * the last check (it stamped the send time with Redis's clock) and the request leaves
   * right after it; when it is not, the request waits for a slot and the payout is checked
   * again right before it leaves.
   */
  async confirm(payoutId: string, asker: Asker, pin?: PinProof): Promise<ConfirmResult> {
    const { stepUpThresholdXaf: threshold } = this.#rules;
    const held = await stepUpHold(this.#context, { threshold, payoutId, asker, pin });
    if (held) return held;
    const result = await this.#confirm(payoutId, asker);
    // Only a press counted in the claim (confirmPressed) is ever throttled.
    if (result.outcome === "throttled") throw new Error("a claim without a press was throttled");
    return result;
  }

  /** Whether `confirmPressed` may be used: no PIN step-up is configured (it reads no payout first). */
  get confirmsWithoutReading(): boolean {
    return this.#rules.stepUpThresholdXaf === undefined;
  }

  /**
   * `confirm` with the button press counted in the claim's own atomic step, on the same
   * counter as the access step's (Sessions.pressAllowed): over the limit, nothing is claimed
   * and nothing read (`throttled`). Sent with the access step's reads, before the role is
   * known (features/shared/confirm-ahead.ts); the claim checks the initiator's role itself.
   * Only where no PIN step-up is configured (`confirmsWithoutReading`).
   */
  async confirmPressed(
    payoutId: string,
    asker: NonNullable<Asker>,
    press: { name: string; limit: number; windowMs: number },
    roleNow?: Promise<Role | null>,
  ): Promise<ConfirmResult | { outcome: "throttled" }> {
    if (!this.confirmsWithoutReading) throw new Error("a PIN step-up reads the payout first");
    return this.#confirm(payoutId, asker, press, roleNow);
  }

  async #confirm(
    payoutId: string,
    asker: Asker,
    press?: { name: string; limit: number; windowMs: number },
    roleNow?: Promise<Role | null>,
  ): Promise<ConfirmResult | { outcome: "throttled" }> {
    const { gateway } = this.#context;
    const claim = await this.#claim(payoutId, asker, gateway.sharedSlot?.(), press, roleNow);
    if (claim.outcome !== "claimed") return claim;
    // The claim took the slot when it could; a limiter it could not reach (or a resend of
    // a claim already made, which says nothing of the slot) is asked on its own.
    const slotTaken = claim.slotTaken ?? (await gateway.takeSlot?.()) ?? false;
    const { durable, slotTaken: _slot, ...claimed } = claim;
    let tell: (payout: Payout | undefined) => void = () => undefined;
    const answered = new Promise<Payout | undefined>((resolve) => {
      tell = resolve;
    });
    // A claim not confirmed persisted must not let its request leave unchecked.
    const submitted = this.#send(claimed, slotTaken && durable, tell);
    void submitted.then(
      () => tell(undefined),
      () => tell(undefined),
    );
    return { ...claimed, submitted, answered };
  }

  /**
   * The atomic move `awaiting_confirmation → submitting` of the initiator's Confirm, before
   * any request leaves, a payout's amount reserved against the day's caps in the same step
   * (over a cap: refused, nothing reserved). At or over the approval threshold the move is
   * to `awaiting_approval` instead, reserved the same way, and nothing is claimed. Only the
   * initiator may confirm (checked in the same step); an expired prompt is moved to
   * `expired`. The claim is sent with `submit`.
   */
  async claim(payoutId: string, asker: Asker): Promise<ClaimResult> {
    const claim = await this.#claim(payoutId, asker);
    // Only a press counted in the claim (confirmPressed) is ever throttled.
    if (claim.outcome === "throttled") throw new Error("a claim without a press was throttled");
    if (claim.outcome !== "claimed") return claim;
    const { durable: _durable, slotTaken: _slot, ...claimed } = claim;
    return claimed;
  }

  /**
   * Sends the one `POST /disburse` (or `/collect`) of a claimed payout, whoever claimed it
   * and whenever, and records what the API said: the payout is checked again right before
   * its request leaves. A lost answer makes the payout `unknown`: never retried here,
   * verified by a person. `checked`: the claim took a rate-limit slot and stamped the send
   * time durably (it was the last check), so the request leaves at once.
   */
  submit(claimed: ClaimedPayout, options: { checked?: boolean } = {}): Promise<SubmitResult> {
    return this.#send(claimed, (options.checked ?? claimed.checked) === true);
  }

  /**
   * One round trip on the common path: the claim checks, in its own atomic step, who
   * confirms, that the prompt has not expired, that no second person is needed, and the
   * day's caps (a payout only: collections are not counted). A payout that needs approval
   * is refused as such, with its record, and asked for approval in a second step.
   */
  async #claim(
    payoutId: string,
    asker: Asker,
    slot?: SharedSlot,
    press?: { name: string; limit: number; windowMs: number },
    roleNow?: Promise<Role | null>,
  ): Promise<
    | Exclude<ClaimResult, { outcome: "claimed" }>
    | { outcome: "throttled" }
    | ({ outcome: "claimed"; durable: boolean; slotTaken: boolean | undefined } & ClaimedPayout)
  > {
    const { stores, log, now } = this.#context;
    const initiatorId = confirmableBy(asker);
    if (asker === null || initiatorId === null) return this.#notConfirmable(payoutId);
    const nowMs = now();
    const claimId = randomHex(8);
    let actor = staffActor(asker);
    const expect = {
      initiatorId,
      notExpiredAtMs: nowMs,
      amountBelowXaf: this.#rules.approval.thresholdXaf,
      // The initiator's role as the staff record has it now, read in the claim itself.
      initiatorRoles: PAYING_ROLES,
    };
    const options = {
      claimId,
      actor,
      expect,
      reserve: this.#rules.limits.reservation("disbursement"),
      stampSentAtMs: true,
      // Durable: if Redis failed over now, the new primary must still know this payout may
      // have been sent, or it could go back to "awaiting confirmation" and be paid twice.
      durable: true,
      ...(slot === undefined ? {} : { slot }),
      ...(press === undefined ? {} : { press }),
    };
    // A command that timed out may still have been applied by Redis, so it is asked again
    // with the same claim id: the store answers "yours already" instead of a conflict, and
    // the payout is neither sent twice nor stranded.
    const result = await retryPayoutWrite(log, payoutId, "claim", () =>
      stores.payouts.transition(payoutId, "confirm", { submittedAtMs: nowMs }, options),
    );
    // A claim sent ahead of the access step's reads was drafted with a role remembered in
    // this process; its own audit entries name the one the script read, and what follows
    // names the one just read (sent before the claim, so already answered).
    const role = roleNow ? ((await roleNow.catch(() => null)) ?? asker.role) : asker.role;
    if (role !== asker.role) actor = staffActor({ userId: asker.userId, role });
    if (result.ok) {
      const { payout, durable, slotTaken } = result;
      return { outcome: "claimed", payout, claimId, actor, durable, slotTaken };
    }
    switch (result.reason) {
      case "throttled":
        return { outcome: "throttled" };
      case "not_initiator":
      case "initiator_not_allowed":
        return { outcome: "forbidden", payout: result.payout };
      case "expired":
        return this.#expire(payoutId);
      case "needs_approval":
        return this.#requestApproval(result.payout, { claimId, actor, expect });
      default:
        return this.#refused(result, actor);
    }
  }

  /** The Confirm of a payout at or over the threshold: it now waits for a second person. */
  async #requestApproval(
    payout: Payout,
    options: { claimId: string; actor: Actor; expect: { initiatorId: number } },
  ): Promise<NotClaimed> {
    const { approval, limits } = this.#rules;
    const reserve = limits.reservation(payout.kind);
    const { initiatorId } = options.expect;
    const requested = await approval.request(payout, {
      ...options,
      expect: { initiatorId, notExpiredAtMs: this.#context.now(), initiatorRoles: PAYING_ROLES },
      reserve,
    });
    if (!requested.ok) {
      if (requested.reason === "expired") return this.#expire(payout.id);
      return this.#refused(requested, options.actor);
    }
    const approvers = await approval.approversOf(payout);
    return { outcome: "approval_requested", payout: requested.payout, approvers };
  }

  /** A Confirm the store refused: over a cap (audited), or someone else moved it first. */
  async #refused(
    result: Extract<TransitionResult, { ok: false }>,
    actor: Actor,
  ): Promise<NotClaimed> {
    if (result.reason === "not_initiator" || result.reason === "initiator_not_allowed") {
      return { outcome: "forbidden", payout: result.payout };
    }
    if (result.reason !== "over_limit") return lostRace(result);
    const { payout } = result;
    const used =
      result.limit === "payer" ? { payerXaf: result.usedXaf } : { merchantXaf: result.usedXaf };
    const over = this.#rules.limits.over(result.limit, used);
    const refusal = { actor, kind: payout.kind, amount: payout.amount, phone: payout.phone };
    await this.#rules.limits.audit({ ...refusal, payoutId: payout.id, step: "confirm" }, over);
    return { outcome: "over_limit", payout, over };
  }

  /**
   * The request and its answer; `checked`: the claim was the last check, send at once.
   * `answered` hears the accepted payout before its record is written (ConfirmResult).
   */
  async #send(
    claimed: ClaimedPayout,
    checked: boolean,
    answered?: (payout: Payout) => void,
  ): Promise<SubmitResult> {
    const { gateway, log, now } = this.#context;
    const { payout, claimId } = claimed;
    const request = { amount: payout.amount, phoneNumber: payout.phone };
    const send = { slotTaken: checked, beforeSend: () => this.#lastCheck(claimed) };
    let payment: Payment;
    try {
      payment =
        payout.kind === "disbursement"
          ? await gateway.disburse(request, send)
          : await gateway.collect(request, send);
    } catch (error) {
      if (!(error instanceof NotToSend)) return this.#records.failure(payout, error);
      if (error.unconfirmed) return this.#records.heldBack(payout);
      return this.#records.notSent(payout, error.current);
    }
    traceMark("submit answered");
    // Logged before it is written: if the write fails, the id is still on record.
    log.info({ payoutId: payout.id, paymentId: payment.id }, "payment request answered");
    const mismatch = answerMismatch(payout, payment);
    if (mismatch) return this.#records.mismatch(payout, payment, mismatch);
    const operator = knownOperator(payment.telecomOperator);
    if (payment.telecomOperator !== undefined && !operator) {
      log.warn(
        { payoutId: payout.id, telecomOperator: payment.telecomOperator },
        "the API named an operator we do not know; keeping the one from the number",
      );
    }
    const patch = {
      paymentId: payment.id,
      apiStatus: knownStatus(payment.status),
      fee: payment.fee,
      operator: operator ?? payout.operator,
    };
    const firstPollAtMs = now() + this.#pollIntervalMs;
    const recording = this.#records.accepted(payout, claimId, patch, firstPollAtMs);
    // Told while the record is written: a crash before it is written leaves the payout in
    // `submitting` without its payment id, which the stranded rule makes `unknown` (no
    // second request; the payer and the admins told, the prompt edited: test/e2e/pay/
    // pending-before-record.test.ts).
    answered?.({ ...payout, ...patch, state: "pending", updatedAtMs: now() });
    const accepted = await recording;
    traceMark("submit recorded");
    if (accepted.state !== "pending") {
      // The payment id already belongs to another payout: never attach it to this one.
      return this.#records.mismatch(payout, payment, "the payment id belongs to another payout");
    }
    log.info({ payoutId: payout.id, paymentId: payment.id }, "payment request accepted");
    return { outcome: "pending", payout: accepted };
  }

  /**
   * The last atomic check, right before a request that waited leaves: a payout that left
   * `submitting` meanwhile (marked unknown by the stranded rule while this process waited)
   * must never be sent. Stamps the send time with the store's clock, durably.
   */
  async #lastCheck(claimed: ClaimedPayout): Promise<void> {
    const { stores, log } = this.#context;
    const { payout, claimId, actor } = claimed;
    const sending = await retryPayoutWrite(log, payout.id, "mark sending", () =>
      stores.payouts.markSending(payout.id, claimId, { durable: true, actor }),
    );
    if (!sending.ok) throw new NotToSend(sending.payout, false);
    if (!sending.durable) throw new NotToSend(payout, true);
  }

  /** A press from someone who may confirm nothing: the payout, if any, is not theirs. */
  async #notConfirmable(payoutId: string): Promise<NotClaimed> {
    const payout = await this.#context.stores.payouts.get(payoutId);
    return payout ? { outcome: "forbidden", payout } : { outcome: "not_found" };
  }

  /** The press only found out: time expired the prompt (the bot's own move). */
  async #expire(payoutId: string): Promise<NotClaimed> {
    const expired = await this.#context.stores.payouts.transition(payoutId, "expire");
    return expired.ok ? { outcome: "expired", payout: expired.payout } : lostRace(expired);
  }
}
