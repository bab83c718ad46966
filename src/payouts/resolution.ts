/**
 * Unknown payouts resolved by a person: an admin finds the payment in the merchant portal
 * (its id is checked with the API before the payout is tracked again), or establishes that
 * it was not made.
 */
import type { Actor, AuditDetails } from "../model/audit.js";
import { knownStatus } from "../model/payment-terms.js";
import type { PayoutPatch } from "../model/payout.js";
import { PaymentApiError, PaymentClientError } from "../payments/errors.js";
import type { Payment } from "../payments/schemas.js";
import { paymentMatches } from "./answer-check.js";
import type { ResolveResult, StepContext } from "./types.js";

export class Resolution {
  readonly #context: StepContext;

  constructor(context: StepContext) {
    this.#context = context;
  }

  /**
   * An admin found the payment of an `unknown` payout in the merchant portal. The id is
   * checked with the API (it must exist and match the number and amount) before the
   * payout is tracked again.
   */
  async withPaymentId(payoutId: string, admin: Actor, paymentId: string): Promise<ResolveResult> {
    const { gateway, stores, now } = this.#context;
    const payout = await stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (payout.state !== "unknown") return { outcome: "not_unknown", payout };
    let payment: Payment;
    try {
      payment = await gateway.getPayment(paymentId);
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404)
        return { outcome: "payment_not_found" };
      if (error instanceof PaymentClientError) return { outcome: "api_error", error };
      throw error;
    }
    if (!paymentMatches(payment, payout)) return { outcome: "mismatch", payout, payment };
    // One payment settles one payout: two unknown payouts with the same number and
    // amount must not both claim it, or both payers would be told "paid".
    const owner = await stores.payouts.findByPaymentId(payment.id);
    if (owner && owner.id !== payout.id) return { outcome: "payment_taken", payout, payment };
    const result = await this.#resolve(payoutId, admin, "resolve_with_id", {
      patch: { paymentId: payment.id, apiStatus: knownStatus(payment.status), fee: payment.fee },
      details: { paymentId: payment.id, status: payment.status ?? null },
      payment,
    });
    if (result.outcome !== "resolved") return result;
    // Tracked like any pending payout; due now, so a final status shows up at once.
    await stores.tracking.schedule(payoutId, now(), { wake: true });
    return result;
  }

  /** An admin established that an `unknown` payout was not paid. */
  async asFailed(payoutId: string, admin: Actor): Promise<ResolveResult> {
    return this.#resolve(payoutId, admin, "resolve_failed", {
      patch: { settledAtMs: this.#context.now() },
    });
  }

  /** The move out of `unknown` by an admin, audited with it. */
  async #resolve(
    payoutId: string,
    admin: Actor,
    event: "resolve_with_id" | "resolve_failed",
    how: { patch: PayoutPatch; details?: AuditDetails; payment?: Payment },
  ): Promise<ResolveResult> {
    const { stores } = this.#context;
    // Durable: a payment id an admin found must survive a failover like any other.
    const result = await stores.payouts.transition(
      payoutId,
      event,
      { ...how.patch, resolvedBy: admin.id },
      { durable: true, actor: admin, ...(how.details ? { auditDetails: how.details } : {}) },
    );
    if (!result.ok) {
      if (result.reason === "not_found" || result.reason === "throttled") {
        return { outcome: "not_found" };
      }
      // Another resolve took this payment id between our check and our move.
      if (result.reason === "payment_taken" && how.payment) {
        return { outcome: "payment_taken", payout: result.payout, payment: how.payment };
      }
      return { outcome: "not_unknown", payout: result.payout };
    }
    return { outcome: "resolved", payout: result.payout };
  }
}
