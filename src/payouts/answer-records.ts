/**
 * What a submission leaves behind: the payout's move out of `submitting` once the API
 * answered (or did not), and the admins told when the answer needs a person. Only the
 * submission that holds a payout's claim calls these, so each move is its to make.
 */
import type { AuditDetails } from "../model/audit.js";
import type { PayoutEvent } from "../model/lifecycle.js";
import type { Notice } from "../model/notice.js";
import type { Payout, PayoutPatch } from "../model/payout.js";
import {
  OutcomeUnknownError,
  PaymentApiError,
  PaymentClientError,
  RateLimitedError,
} from "../payments/errors.js";
import type { Payment } from "../payments/schemas.js";
import type { TransitionOptions, TransitionResult } from "../store/types.js";
import { PERSISTENT_RETRY, retryPayoutWrite } from "./store-retry.js";
import type { StepContext, SubmitResult } from "./types.js";

/** The audit facts of a move that records a payment. */
function paymentDetails(patch: PayoutPatch): AuditDetails {
  return { paymentId: patch.paymentId ?? null, status: patch.apiStatus ?? null };
}

/**
 * The notices of a move out of `submitting`: an approved payout's payer did not press
 * Confirm last and is not watching, so they are told what came of it.
 */
function outcomeNotices(payout: Payout, extra: readonly Notice[] = []): Notice[] {
  const told: Notice[] =
    payout.approvedBy === undefined ? [] : [{ kind: "approved_outcome", payoutId: payout.id }];
  return [...extra, ...told];
}

export class AnswerRecords {
  readonly #context: StepContext;
  readonly #onNoticeQueued: () => void;

  constructor(context: StepContext, onNoticeQueued: () => void) {
    this.#context = context;
    this.#onNoticeQueued = onNoticeQueued;
  }

  /**
   * Records the payment id of a 201. A transient Redis error is retried: the id must not be
   * lost. The move carries the claim id, so a resend that Redis had already applied reads
   * as "already pending under this claim" (success). A payout the stranded rule marked
   * unknown meanwhile (same claim) takes the id late, and the admins are told.
   */
  async accepted(
    payout: Payout,
    claimId: string,
    patch: PayoutPatch,
    firstPollAtMs: number,
  ): Promise<Payout> {
    const { stores } = this.#context;
    const payoutId = payout.id;
    const options = {
      claimId,
      durable: true,
      auditDetails: paymentDetails(patch),
      trackAtMs: firstPollAtMs,
      notices: outcomeNotices(payout),
    };
    const result = await this.#durableTransition(payoutId, "record the payment id", () =>
      stores.payouts.transition(payoutId, "accepted", patch, options),
    );
    if (result.ok) return result.payout;
    if (result.reason === "payment_taken") return result.payout;
    if (result.reason === "wrong_state" && result.payout.state === "unknown") {
      if (result.payout.claimId === claimId) {
        return this.#acceptedLate(result.payout, patch, firstPollAtMs);
      }
    }
    throw new Error(`payout ${payoutId} left submitting while it was being sent`);
  }

  /**
   * A 201 whose body contradicts the request (another number or amount, or a payment id
   * already recorded for another payout). Money may have moved, so the payout is
   * `unknown`, never attached to that payment, and the admins are told at once.
   */
  async mismatch(payout: Payout, payment: Payment, problem: string): Promise<SubmitResult> {
    const { log } = this.#context;
    const message = `the API answered with a payment that does not match the request: ${problem}`;
    const lost = await this.#leaveSubmitting(
      payout,
      "lost",
      { errorMessage: message, candidatePaymentId: payment.id },
      {
        notices: [{ kind: "attention", payoutId: payout.id, reason: "mismatch" }],
        auditDetails: { paymentId: payment.id, reason: `answer does not match: ${problem}` },
      },
    );
    log.error(
      { payoutId: payout.id, paymentId: payment.id, problem },
      "payment answer does not match the request; outcome unknown",
    );
    this.#onNoticeQueued();
    return { outcome: "unknown", payout: lost };
  }

  /**
   * The claim could not be confirmed persisted (no replica answered in time): the request
   * is not sent, and the payout ends `rejected_by_api` saying the bot held it back.
   */
  async heldBack(payout: Payout): Promise<SubmitResult> {
    this.#context.log.error(
      { payoutId: payout.id },
      "claim not confirmed persisted by Redis in time; request not sent",
    );
    const reason = "not sent: the bot's storage could not confirm the claim was saved";
    const held = await this.#leaveSubmitting(
      payout,
      "refused",
      { errorMessage: reason, heldBackBecause: "storage_not_confirmed" },
      { auditDetails: { reason } },
    );
    return { outcome: "not_sent", payout: held };
  }

  /**
   * The payout left `submitting` before its request could go: nothing was sent, and
   * nothing will be. One marked unknown by the stranded rule is known not to be paid.
   */
  async notSent(payout: Payout, current: Payout | null): Promise<SubmitResult> {
    const { stores, log, now } = this.#context;
    log.warn(
      { payoutId: payout.id, state: current?.state ?? "gone" },
      "payout left submitting before its request was sent; nothing sent",
    );
    if (current?.state !== "unknown" || current.claimId !== payout.claimId) {
      return { outcome: "not_sent", payout: current ?? payout };
    }
    const reason = "not sent: the payout was marked unknown before its request could leave";
    const failed = await stores.payouts.transition(
      payout.id,
      "resolve_failed",
      { settledAtMs: now(), errorMessage: reason },
      { auditDetails: { reason } },
    );
    return { outcome: "not_sent", payout: failed.ok ? failed.payout : current };
  }

  /** The request failed: refused when nothing can have been created, else unknown. */
  async failure(payout: Payout, error: unknown): Promise<SubmitResult> {
    const { log } = this.#context;
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
      const errorMessage = error instanceof PaymentApiError ? error.apiMessage : message;
      const refused = await this.#leaveSubmitting(
        payout,
        "refused",
        { errorMessage, errorStatusCode: statusCode },
        { auditDetails: { statusCode: statusCode ?? null, reason: errorMessage } },
      );
      log.warn({ payoutId: payout.id, err: error }, "payment request refused");
      return { outcome: "refused", payout: refused, error };
    }
    // Anything else — a lost answer, or a bug of ours after the request may have left —
    // is unknown: a second request could pay twice.
    const lost = await this.#leaveSubmitting(
      payout,
      "lost",
      { errorMessage: message },
      { auditDetails: { reason: message } },
    );
    log.error({ payoutId: payout.id, err: error }, "payment outcome unknown");
    return { outcome: "unknown", payout: lost };
  }

  /** `unknown → pending`: the 201 of this very claim arrived after it was marked unknown. */
  async #acceptedLate(payout: Payout, patch: PayoutPatch, firstPollAtMs: number): Promise<Payout> {
    const { stores, log } = this.#context;
    const options = {
      claimId: payout.claimId,
      durable: true,
      notices: [{ kind: "attention", payoutId: payout.id, reason: "accepted_late" } as const],
      auditDetails: paymentDetails(patch),
      trackAtMs: firstPollAtMs,
    };
    const late = await this.#durableTransition(payout.id, "record a late payment id", () =>
      stores.payouts.transition(payout.id, "accepted_late", patch, options),
    );
    if (!late.ok) {
      if (late.reason === "not_found" || late.reason === "throttled")
        throw new Error(`payout ${payout.id} is gone`);
      return late.payout;
    }
    log.warn(
      { payoutId: payout.id, paymentId: patch.paymentId },
      "a payout marked unknown was accepted late; tracking it again",
    );
    this.#onNoticeQueued();
    return late.payout;
  }

  /**
   * A move that records what already happened (a payment id): asked again, for up to a
   * minute, while Redis does not answer or cannot confirm the write persisted. Each try
   * carries the claim id, so one that Redis had applied reads as done. Past the minute an
   * unconfirmed move stands as made (logged); one Redis never took is thrown.
   */
  async #durableTransition(
    payoutId: string,
    what: string,
    move: () => Promise<TransitionResult>,
  ): Promise<TransitionResult> {
    let unconfirmed: TransitionResult | undefined;
    try {
      return await retryPayoutWrite(
        this.#context.log,
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
      this.#context.log.error({ payoutId, err: error }, `could not confirm the write to ${what}`);
      return unconfirmed;
    }
  }

  /** The move out of `submitting` after the request; only its claimant may make it. */
  async #leaveSubmitting(
    payout: Payout,
    event: Extract<PayoutEvent, "accepted" | "refused" | "lost">,
    patch: PayoutPatch,
    options: Pick<TransitionOptions, "notices" | "auditDetails">,
  ): Promise<Payout> {
    const told = { ...options, notices: outcomeNotices(payout, options.notices) };
    const result = await this.#context.stores.payouts.transition(payout.id, event, patch, told);
    if (result.ok) return result.payout;
    if (result.reason === "payment_taken") return result.payout;
    throw new Error(`payout ${payout.id} left submitting while it was being sent`);
  }
}
