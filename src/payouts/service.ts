/**
 * The payout service: the only place that calls the Payment API for a payout. Handlers
 * collect input and call this; this validates, asks the API, and moves payouts through
 * the lifecycle with the stores' compare-and-set, so exactly-once holds whatever the
 * handlers, replicas or retries do.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "../logger.js";
import { maskPhone, silentLogger } from "../logger.js";
import type { AuditEntry } from "../model/audit.js";
import { type PayoutEvent, settleEventFor } from "../model/lifecycle.js";
import { parseAmount } from "../model/money.js";
import {
  knownOperator,
  knownStatus,
  type PaymentType,
  type TelecomOperator,
} from "../model/payment-terms.js";
import type { Payout, PayoutKind, PayoutPatch } from "../model/payout.js";
import { parsePhone } from "../model/phone.js";
import { cleanLine, cleanName, cleanNote, cleanRemark, MAX_NAME_LENGTH } from "../model/text.js";
import {
  OutcomeUnknownError,
  PaymentApiError,
  PaymentClientError,
  RateLimitedError,
} from "../payments/errors.js";
import {
  type AvailabilityEntry,
  OPERATIONAL,
  type Payment,
  paymentRemark,
  type UserInfo,
} from "../payments/schemas.js";
import type { Stores, TransitionResult } from "../store/types.js";
import { answerMismatch, finalStatusOf, paymentMatches } from "./answer-check.js";
import type {
  CancelResult,
  ClaimResult,
  PaymentGateway,
  PayoutServiceOptions,
  PrepareInput,
  PrepareResult,
  ResolveResult,
  SettleResult,
  SubmitResult,
} from "./service-types.js";
import {
  PERSISTENT_RETRY,
  QUICK_RETRY,
  retryStoreWrite,
  type StoreRetryPolicy,
} from "./store-retry.js";

const OPERATION_OF: Record<PayoutKind, PaymentType> = {
  disbursement: "disbursement",
  collection: "collection",
};

/** A compare-and-set that found the payout gone or already moved on by someone else. */
function lostRace(
  result: Extract<TransitionResult, { ok: false }>,
): { outcome: "not_found" } | { outcome: "already"; payout: Payout } {
  return result.reason === "not_found"
    ? { outcome: "not_found" }
    : { outcome: "already", payout: result.payout };
}

export class PayoutService {
  readonly #gateway: PaymentGateway;
  readonly #stores: Stores;
  readonly #log: Logger;
  readonly #ttlMs: number;
  readonly #pollIntervalMs: number;
  readonly #availabilityCacheMs: number;
  readonly #now: () => number;
  #availability: { entries: AvailabilityEntry[]; atMs: number } | undefined;
  readonly #onAttention: NonNullable<PayoutServiceOptions["onAttention"]>;
  /** Statuses outside the spec's four already logged (each once per process). */
  readonly #unknownStatuses = new Set<string>();

  constructor(options: PayoutServiceOptions) {
    this.#gateway = options.gateway;
    this.#stores = options.stores;
    this.#log = options.logger ?? silentLogger;
    this.#ttlMs = options.confirmationTtlSeconds * 1000;
    this.#pollIntervalMs = options.statusPollIntervalMs;
    this.#availabilityCacheMs = options.availabilityCacheMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    this.#onAttention = options.onAttention ?? (async () => {});
  }

  /**
   * Validates a /pay or /collect request, checks the operator is available for it and
   * looks up the registered name; on success stores the payout awaiting confirmation.
   * Nothing is stored on any failure.
   */
  async prepare(input: PrepareInput): Promise<PrepareResult> {
    const phone = parsePhone(input.phone);
    if (!phone.ok) {
      return { ok: false, reason: "bad_phone", problem: phone.problem, operator: phone.operator };
    }
    const amount = parseAmount(input.amount);
    if (!amount.ok) return { ok: false, reason: "bad_amount", problem: amount.problem };

    let name: string;
    try {
      if (!(await this.isOperational(phone.operator, input.kind))) {
        return {
          ok: false,
          reason: "operator_unavailable",
          operator: phone.operator,
          kind: input.kind,
        };
      }
      const info = await this.#gateway.getUserInfo(phone.phone);
      name = cleanName(info);
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        return { ok: false, reason: "no_account", phone: phone.phone };
      }
      if (error instanceof PaymentClientError) return { ok: false, reason: "api_error", error };
      throw error;
    }
    if (name === "") return { ok: false, reason: "no_account", phone: phone.phone };

    const now = this.#now();
    const payout: Payout = {
      id: randomBytes(12).toString("base64url"),
      kind: input.kind,
      state: "awaiting_confirmation",
      phone: phone.phone,
      operator: phone.operator,
      recipientName: name,
      amount: amount.amount,
      note: cleanNote(input.note),
      initiatorId: input.initiatorId,
      chatId: input.chatId,
      locale: input.locale,
      createdAtMs: now,
      updatedAtMs: now,
      expiresAtMs: now + this.#ttlMs,
    };
    await this.#stores.payouts.create(payout);
    this.#log.info(
      {
        payoutId: payout.id,
        kind: payout.kind,
        phone: maskPhone(payout.phone),
        amount: payout.amount,
      },
      "payout prepared",
    );
    return { ok: true, payout };
  }

  /** Remembers which message shows the prompt, so later states can edit it. */
  async attachMessage(payoutId: string, messageId: number): Promise<void> {
    await this.#stores.payouts.update(payoutId, { messageId });
  }

  /** The registered name for a number (the same check /pay makes). */
  async whois(phone: string): Promise<UserInfo> {
    const info = await this.#gateway.getUserInfo(phone);
    // Each part alone, cleaned like the full name: what the API sends is shown to staff.
    return {
      ...info,
      firstName: cleanLine(info.firstName, MAX_NAME_LENGTH) ?? "",
      lastName: cleanLine(info.lastName, MAX_NAME_LENGTH) ?? "",
    };
  }

  /** Operator availability, cached for a short while (every /pay would otherwise ask). */
  async availability(): Promise<AvailabilityEntry[]> {
    const cached = this.#availability;
    if (cached && this.#now() - cached.atMs < this.#availabilityCacheMs) return cached.entries;
    const entries = await this.#gateway.getAvailability();
    this.#availability = { entries, atMs: this.#now() };
    return entries;
  }

  /** Payment as the API reports it now (for /status). */
  async paymentStatus(paymentId: string): Promise<Payment> {
    return this.#gateway.getPayment(paymentId);
  }

  /** A status outside the spec's four keeps the payout pending; it is logged once. */
  private noteUnknownStatus(status: string | undefined): void {
    const key = status ?? "(none)";
    if (status === "pending" || this.#unknownStatuses.has(key)) return;
    if (this.#unknownStatuses.size < 100) this.#unknownStatuses.add(key);
    this.#log.warn({ status: key }, "the API reported a status we do not know; still pending");
  }

  private async isOperational(operator: TelecomOperator, kind: PayoutKind): Promise<boolean> {
    const entries = await this.availability();
    const entry = entries.find(
      (item) => item.operator === operator && item.operation.type === OPERATION_OF[kind],
    );
    // An operator the API does not list is not known to be up: refuse rather than guess.
    return entry?.operation.status === OPERATIONAL;
  }

  /**
   * Step one of Confirm: the atomic move `awaiting_confirmation → submitting`, before any
   * request leaves. Only the initiator may claim; an expired prompt is moved to `expired`.
   */
  async claim(payoutId: string, userId: number): Promise<ClaimResult> {
    const payout = await this.#stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (payout.initiatorId !== userId) return { outcome: "forbidden", payout };
    if (payout.state !== "awaiting_confirmation") return { outcome: "already", payout };
    if (this.#now() > payout.expiresAtMs) {
      const expired = await this.#stores.payouts.transition(payoutId, "expire");
      return expired.ok ? { outcome: "expired", payout: expired.payout } : lostRace(expired);
    }
    const claimId = randomBytes(8).toString("hex");
    const result = await this.claimOnce(payoutId, claimId);
    return result.ok ? { outcome: "claimed", payout: result.payout, claimId } : lostRace(result);
  }

  /**
   * The compare-and-set of a claim. A command that timed out may still have been applied
   * by Redis, so it is asked again with the same claim id: the store answers "yours
   * already" instead of a conflict, and the payout is neither sent twice nor stranded.
   */
  private claimOnce(payoutId: string, claimId: string) {
    const patch = { submittedAtMs: this.#now() };
    return this.withStoreRetries(payoutId, "claim", () =>
      this.#stores.payouts.transition(payoutId, "confirm", patch, { claimId }),
    );
  }

  /**
   * Step two of Confirm: sends the one `POST /disburse` (or `/collect`) of a claimed
   * payout and records what the API said. A lost answer makes the payout `unknown`:
   * never retried here, verified by a person.
   */
  async submit(claimed: Extract<ClaimResult, { outcome: "claimed" }>): Promise<SubmitResult> {
    const { payout, claimId } = claimed;
    // The last atomic check: a payout that left `submitting` meanwhile (marked unknown by
    // the stranded rule while this process stalled) must never be sent.
    // Durable: if Redis failed over now, the new primary must still know this payout may
    // have been sent, or it could go back to "awaiting confirmation" and be paid twice.
    const sending = await this.withStoreRetries(payout.id, "mark sending", () =>
      this.#stores.payouts.markSending(payout.id, claimId, { durable: true }),
    );
    if (!sending.ok) return this.recordNotSent(payout, sending.payout);
    if (!sending.durable) return this.holdBack(payout);
    const request = { amount: payout.amount, phoneNumber: payout.phone };
    let payment: Payment;
    try {
      payment =
        payout.kind === "disbursement"
          ? await this.#gateway.disburse(request)
          : await this.#gateway.collect(request);
    } catch (error) {
      return this.recordSubmitFailure(payout, error);
    }
    // Logged before it is written: if the write fails, the id is still on record.
    this.#log.info({ payoutId: payout.id, paymentId: payment.id }, "payment request answered");
    const mismatch = answerMismatch(payout, payment);
    if (mismatch) return this.recordMismatch(payout, payment, mismatch);
    const operator = knownOperator(payment.telecomOperator);
    if (payment.telecomOperator !== undefined && !operator) {
      this.#log.warn(
        { payoutId: payout.id, telecomOperator: payment.telecomOperator },
        "the API named an operator we do not know; keeping the one from the number",
      );
    }
    const accepted = await this.recordAccepted(payout.id, claimId, {
      paymentId: payment.id,
      apiStatus: knownStatus(payment.status),
      fee: payment.fee,
      operator: operator ?? payout.operator,
    });
    if (accepted.state !== "pending") {
      // The payment id already belongs to another payout: never attach it to this one.
      return this.recordMismatch(payout, payment, "the payment id belongs to another payout");
    }
    await this.#stores.tracking.schedule(payout.id, this.#now() + this.#pollIntervalMs);
    this.#log.info({ payoutId: payout.id, paymentId: payment.id }, "payment request accepted");
    return { outcome: "pending", payout: accepted };
  }

  /**
   * A 201 whose body contradicts the request (another number or amount, or a payment id
   * already recorded for another payout). Money may have moved, so the payout is
   * `unknown`, never attached to that payment, and the admins are told at once.
   */
  private async recordMismatch(
    payout: Payout,
    payment: Payment,
    problem: string,
  ): Promise<SubmitResult> {
    const message = `the API answered with a payment that does not match the request: ${problem}`;
    const lost = await this.leaveSubmitting(payout.id, "lost", {
      errorMessage: message,
      candidatePaymentId: payment.id,
    });
    await this.#stores.audit.record({
      atMs: this.#now(),
      actorId: payout.initiatorId,
      action: "payout_answer_mismatch",
      payoutId: payout.id,
      details: { paymentId: payment.id, problem },
    });
    this.#log.error(
      { payoutId: payout.id, paymentId: payment.id, problem },
      "payment answer does not match the request; outcome unknown",
    );
    await this.#onAttention(lost, "mismatch").catch((error: unknown) =>
      this.#log.warn({ err: error, payoutId: payout.id }, "could not alert the admins"),
    );
    return { outcome: "unknown", payout: lost };
  }

  /**
   * Records the payment id of a 201. A transient Redis error is retried: the id must not be
   * lost. The move carries the claim id, so a resend that Redis had already applied reads
   * as "already pending under this claim" (success). A payout the stranded rule marked
   * unknown meanwhile (same claim) takes the id late, and the admins are told.
   */
  private async recordAccepted(
    payoutId: string,
    claimId: string,
    patch: PayoutPatch,
  ): Promise<Payout> {
    const result = await this.durableTransition(payoutId, "record the payment id", () =>
      this.#stores.payouts.transition(payoutId, "accepted", patch, { claimId, durable: true }),
    );
    if (result.ok) return result.payout;
    if (result.reason === "payment_taken") return result.payout;
    if (result.reason === "wrong_state" && result.payout.state === "unknown") {
      if (result.payout.claimId === claimId) return this.recordLateAccepted(result.payout, patch);
    }
    throw new Error(`payout ${payoutId} left submitting while it was being sent`);
  }

  /** `unknown → pending`: the 201 of this very claim arrived after it was marked unknown. */
  private async recordLateAccepted(payout: Payout, patch: PayoutPatch): Promise<Payout> {
    const options = { claimId: payout.claimId, durable: true };
    const late = await this.durableTransition(payout.id, "record a late payment id", () =>
      this.#stores.payouts.transition(payout.id, "accepted_late", patch, options),
    );
    if (!late.ok) {
      if (late.reason === "not_found") throw new Error(`payout ${payout.id} is gone`);
      return late.payout;
    }
    await this.#stores.audit.record({
      atMs: this.#now(),
      actorId: payout.initiatorId,
      action: "payout_accepted_late",
      payoutId: payout.id,
      details: { paymentId: patch.paymentId ?? null },
    });
    this.#log.warn(
      { payoutId: payout.id, paymentId: patch.paymentId },
      "a payout marked unknown was accepted late; tracking it again",
    );
    await this.#onAttention(late.payout, "accepted_late").catch((error: unknown) =>
      this.#log.warn({ err: error, payoutId: payout.id }, "could not alert the admins"),
    );
    return late.payout;
  }

  /**
   * The claim could not be confirmed persisted (no replica answered in time): the request
   * is not sent, and the payout ends `rejected_by_api` saying the bot held it back.
   */
  private async holdBack(payout: Payout): Promise<SubmitResult> {
    this.#log.error(
      { payoutId: payout.id },
      "claim not confirmed persisted by Redis in time; request not sent",
    );
    const held = await this.leaveSubmitting(payout.id, "refused", {
      errorMessage: "not sent: the bot's storage could not confirm the claim was saved",
      heldBackBecause: "storage_not_confirmed",
    });
    return { outcome: "not_sent", payout: held };
  }

  /**
   * The payout left `submitting` before its request could go: nothing was sent, and
   * nothing will be. One marked unknown by the stranded rule is known not to be paid.
   */
  private async recordNotSent(payout: Payout, now: Payout | null): Promise<SubmitResult> {
    this.#log.warn(
      { payoutId: payout.id, state: now?.state ?? "gone" },
      "payout left submitting before its request was sent; nothing sent",
    );
    if (now?.state !== "unknown" || now.claimId !== payout.claimId) {
      return { outcome: "not_sent", payout: now ?? payout };
    }
    const failed = await this.#stores.payouts.transition(payout.id, "resolve_failed", {
      settledAtMs: this.#now(),
      errorMessage: "not sent: the payout was marked unknown before its request could leave",
    });
    await this.#stores.audit.record({
      atMs: this.#now(),
      actorId: payout.initiatorId,
      action: "payout_not_sent",
      payoutId: payout.id,
    });
    return { outcome: "not_sent", payout: failed.ok ? failed.payout : now };
  }

  /** Runs a store write, asking again as `policy` says when Redis did not answer. */
  private withStoreRetries<T>(
    payoutId: string,
    what: string,
    write: () => Promise<T>,
    policy: StoreRetryPolicy = QUICK_RETRY,
  ): Promise<T> {
    return retryStoreWrite(write, policy, (error, attempt, retryInMs) =>
      this.#log.warn(
        { payoutId, err: error, attempt, retryInMs },
        `could not ${what}; asking again`,
      ),
    );
  }

  /**
   * A move that records what already happened (a payment id): asked again, for up to a
   * minute, while Redis does not answer or cannot confirm the write persisted. Each try
   * carries the claim id, so one that Redis had applied reads as done. Past the minute an
   * unconfirmed move stands as made (logged); one Redis never took is thrown.
   */
  private async durableTransition(
    payoutId: string,
    what: string,
    move: () => Promise<TransitionResult>,
  ): Promise<TransitionResult> {
    let unconfirmed: TransitionResult | undefined;
    try {
      return await this.withStoreRetries(
        payoutId,
        what,
        async () => {
          const result = await move();
          if (!result.ok || result.durable) return result;
          unconfirmed = result;
          throw new Error("the write is not confirmed persisted yet");
        },
        PERSISTENT_RETRY,
      );
    } catch (error) {
      if (!unconfirmed) throw error;
      this.#log.error({ payoutId, err: error }, `could not confirm the write to ${what}`);
      return unconfirmed;
    }
  }

  /** The move out of `submitting` after the request; only this call may make it (it holds the claim). */
  private async leaveSubmitting(
    payoutId: string,
    event: Extract<PayoutEvent, "accepted" | "refused" | "lost">,
    patch: PayoutPatch,
  ): Promise<Payout> {
    const result = await this.#stores.payouts.transition(payoutId, event, patch);
    if (result.ok) return result.payout;
    if (result.reason === "payment_taken") return result.payout;
    throw new Error(`payout ${payoutId} left submitting while it was being sent`);
  }

  private async recordSubmitFailure(payout: Payout, error: unknown): Promise<SubmitResult> {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PaymentClientError && !(error instanceof OutcomeUnknownError)) {
      // The API refused, or the request certainly never left (connection refused, our
      // own rate limit): nothing was created.
      // Our own limiter holding a request back reads to the payer like the API's 429.
      const statusCode =
        error instanceof PaymentApiError
          ? error.statusCode
          : error instanceof RateLimitedError
            ? 429
            : undefined;
      const refused = await this.leaveSubmitting(payout.id, "refused", {
        errorMessage: error instanceof PaymentApiError ? error.apiMessage : message,
        errorStatusCode: statusCode,
      });
      this.#log.warn({ payoutId: payout.id, err: error }, "payment request refused");
      return { outcome: "refused", payout: refused, error };
    }
    // Anything else — a lost answer, or a bug of ours after the request may have left —
    // is unknown: a second request could pay twice.
    const lost = await this.leaveSubmitting(payout.id, "lost", { errorMessage: message });
    await this.#stores.audit.record({
      atMs: this.#now(),
      actorId: payout.initiatorId,
      action: "payout_outcome_unknown",
      payoutId: payout.id,
      details: { reason: message },
    });
    this.#log.error({ payoutId: payout.id, err: error }, "payment outcome unknown");
    return { outcome: "unknown", payout: lost };
  }

  async cancel(payoutId: string, userId: number): Promise<CancelResult> {
    const payout = await this.#stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (payout.initiatorId !== userId) return { outcome: "forbidden", payout };
    const result = await this.#stores.payouts.transition(payoutId, "cancel");
    return result.ok ? { outcome: "cancelled", payout: result.payout } : lostRace(result);
  }

  /**
   * Re-reads the payment from the API and settles the payout when the API itself reports
   * a final status. Webhook bodies and polls both end here: a callback is only a hint.
   * Give the payout itself when it was just read (the webhook found it by payment id) to
   * save reading it again; a stale copy is harmless, the move is a compare-and-set.
   */
  async settle(payoutOrId: string | Payout): Promise<SettleResult> {
    const payout =
      typeof payoutOrId === "string" ? await this.#stores.payouts.get(payoutOrId) : payoutOrId;
    if (payout?.state !== "pending" || !payout.paymentId) {
      return { outcome: "not_tracked", payout };
    }
    const payment = await this.#gateway.getPayment(payout.paymentId);
    if (payment.id !== payout.paymentId) {
      throw new Error(`asked for payment ${payout.paymentId}, the API answered ${payment.id}`);
    }
    const status = finalStatusOf(payment);
    if (!status) {
      this.noteUnknownStatus(payment.status);
      return { outcome: "still_pending", payout };
    }
    const payoutId = payout.id;
    const result = await this.#stores.payouts.transition(payoutId, settleEventFor(status), {
      apiStatus: status,
      fee: payment.fee ?? payout.fee,
      settledAtMs: this.#now(),
      // Why it failed, when the API says: the payer reads it with the outcome.
      apiRemark: status === "success" ? undefined : cleanRemark(paymentRemark(payment)),
    });
    if (!result.ok) {
      return {
        outcome: "not_tracked",
        payout: result.reason === "not_found" ? null : result.payout,
      };
    }
    await this.#stores.tracking.remove(payoutId);
    this.#log.info({ payoutId, paymentId: payment.id, status: payment.status }, "payout settled");
    return { outcome: "settled", payout: result.payout };
  }

  /**
   * An admin found the payment of an `unknown` payout in the merchant portal. The id is
   * checked with the API (it must exist and match the number and amount) before the
   * payout is tracked again.
   */
  async resolveWithPaymentId(
    payoutId: string,
    adminId: number,
    paymentId: string,
  ): Promise<ResolveResult> {
    const payout = await this.#stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (payout.state !== "unknown") return { outcome: "not_unknown", payout };
    let payment: Payment;
    try {
      payment = await this.#gateway.getPayment(paymentId);
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404)
        return { outcome: "payment_not_found" };
      if (error instanceof PaymentClientError) return { outcome: "api_error", error };
      throw error;
    }
    if (!paymentMatches(payment, payout)) return { outcome: "mismatch", payout, payment };
    // One payment settles one payout: two unknown payouts with the same number and
    // amount must not both claim it, or both payers would be told "paid".
    const owner = await this.#stores.payouts.findByPaymentId(payment.id);
    if (owner && owner.id !== payout.id) return { outcome: "payment_taken", payout, payment };
    const result = await this.resolve(payoutId, adminId, "resolve_with_id", {
      patch: { paymentId: payment.id, apiStatus: knownStatus(payment.status), fee: payment.fee },
      action: "unknown_resolved_with_payment",
      details: { paymentId: payment.id, status: payment.status ?? null },
      payment,
    });
    if (result.outcome !== "resolved") return result;
    // Tracked like any pending payout; due now, so a final status shows up at once.
    await this.#stores.tracking.schedule(payoutId, this.#now());
    return result;
  }

  /** An admin established that an `unknown` payout was not paid. */
  async resolveAsFailed(payoutId: string, adminId: number): Promise<ResolveResult> {
    return this.resolve(payoutId, adminId, "resolve_failed", {
      patch: { settledAtMs: this.#now() },
      action: "unknown_resolved_as_failed",
    });
  }

  /** The move out of `unknown` by an admin, recorded in the audit log. */
  private async resolve(
    payoutId: string,
    adminId: number,
    event: "resolve_with_id" | "resolve_failed",
    how: {
      patch: PayoutPatch;
      action: string;
      details?: AuditEntry["details"];
      payment?: Payment;
    },
  ): Promise<ResolveResult> {
    // Durable: a payment id an admin found must survive a failover like any other.
    const result = await this.#stores.payouts.transition(
      payoutId,
      event,
      { ...how.patch, resolvedBy: adminId },
      { durable: true },
    );
    if (!result.ok) {
      if (result.reason === "not_found") return { outcome: "not_found" };
      // Another resolve took this payment id between our check and our move.
      if (result.reason === "payment_taken" && how.payment) {
        return { outcome: "payment_taken", payout: result.payout, payment: how.payment };
      }
      return { outcome: "not_unknown", payout: result.payout };
    }
    await this.#stores.audit.record({
      atMs: this.#now(),
      actorId: adminId,
      action: how.action,
      payoutId,
      ...(how.details ? { details: how.details } : {}),
    });
    return { outcome: "resolved", payout: result.payout };
  }
}
