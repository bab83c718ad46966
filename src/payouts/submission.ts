/**
 * The only code that sends `POST /disburse` or `POST /collect`. A payout reaches it
 * claimed: moved atomically to `submitting` under a claim id, by whoever claimed it (the
 * initiator's Confirm here; an approver's decision or a batch worker the same way). Then
 * one last atomic check, the one request, and the answer recorded. Nothing slow stands
 * between the claim and the request.
 */
import { randomBytes } from "node:crypto";
import { staffActor } from "../model/audit.js";
import { knownOperator, knownStatus } from "../model/payment-terms.js";
import type { Payment } from "../payments/schemas.js";
import { answerMismatch } from "./answer-check.js";
import type { AnswerRecords } from "./answer-records.js";
import { type Asker, mayConfirm } from "./policy.js";
import { lostRace } from "./prepare.js";
import { retryPayoutWrite } from "./store-retry.js";
import type { ClaimedPayout, ClaimResult, StepContext, SubmitResult } from "./types.js";

export class Submission {
  readonly #context: StepContext;
  readonly #records: AnswerRecords;
  readonly #pollIntervalMs: number;

  constructor(context: StepContext, records: AnswerRecords, statusPollIntervalMs: number) {
    this.#context = context;
    this.#records = records;
    this.#pollIntervalMs = statusPollIntervalMs;
  }

  /**
   * Step one of Confirm: the atomic move `awaiting_confirmation → submitting`, before any
   * request leaves. Only the initiator may claim; an expired prompt is moved to `expired`.
   */
  async claim(payoutId: string, asker: Asker): Promise<ClaimResult> {
    const { stores, log, now } = this.#context;
    const payout = await stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (asker === null || mayConfirm(asker, payout) !== "allowed") {
      return { outcome: "forbidden", payout };
    }
    if (payout.state !== "awaiting_confirmation") return { outcome: "already", payout };
    if (now() > payout.expiresAtMs) {
      // The press only found out: time expired the prompt (the bot's own move).
      const expired = await stores.payouts.transition(payoutId, "expire");
      return expired.ok ? { outcome: "expired", payout: expired.payout } : lostRace(expired);
    }
    const claimId = randomBytes(8).toString("hex");
    const actor = staffActor(asker);
    // A command that timed out may still have been applied by Redis, so it is asked again
    // with the same claim id: the store answers "yours already" instead of a conflict, and
    // the payout is neither sent twice nor stranded.
    const patch = { submittedAtMs: now() };
    const result = await retryPayoutWrite(log, payoutId, "claim", () =>
      stores.payouts.transition(payoutId, "confirm", patch, { claimId, actor }),
    );
    if (!result.ok) return lostRace(result);
    return { outcome: "claimed", payout: result.payout, claimId, actor };
  }

  /**
   * Step two: sends the one `POST /disburse` (or `/collect`) of a claimed payout and
   * records what the API said. A lost answer makes the payout `unknown`: never retried
   * here, verified by a person.
   */
  async submit(claimed: ClaimedPayout): Promise<SubmitResult> {
    const { gateway, stores, log, now } = this.#context;
    const { payout, claimId, actor } = claimed;
    // The last atomic check: a payout that left `submitting` meanwhile (marked unknown by
    // the stranded rule while this process stalled) must never be sent.
    // Durable: if Redis failed over now, the new primary must still know this payout may
    // have been sent, or it could go back to "awaiting confirmation" and be paid twice.
    const sending = await retryPayoutWrite(log, payout.id, "mark sending", () =>
      stores.payouts.markSending(payout.id, claimId, { durable: true, actor }),
    );
    if (!sending.ok) return this.#records.notSent(payout, sending.payout);
    if (!sending.durable) return this.#records.heldBack(payout);
    const request = { amount: payout.amount, phoneNumber: payout.phone };
    let payment: Payment;
    try {
      payment =
        payout.kind === "disbursement"
          ? await gateway.disburse(request)
          : await gateway.collect(request);
    } catch (error) {
      return this.#records.failure(payout, error);
    }
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
    const accepted = await this.#records.accepted(payout.id, claimId, {
      paymentId: payment.id,
      apiStatus: knownStatus(payment.status),
      fee: payment.fee,
      operator: operator ?? payout.operator,
    });
    if (accepted.state !== "pending") {
      // The payment id already belongs to another payout: never attach it to this one.
      return this.#records.mismatch(payout, payment, "the payment id belongs to another payout");
    }
    await stores.tracking.schedule(payout.id, now() + this.#pollIntervalMs);
    log.info({ payoutId: payout.id, paymentId: payment.id }, "payment request accepted");
    return { outcome: "pending", payout: accepted };
  }
}
