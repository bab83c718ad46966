/**
 * Checks an answer of the Payment API against the question it answers. A 201 is trusted
 * for its id, but a 201 that describes another payment (another number, another amount)
 * must never be recorded as this payout's: that is how one payer gets told "paid" with
 * someone else's money. Pure; no I/O.
 */

import { knownStatus, type PaymentType } from "../model/payment-terms.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import type { Payment } from "../payments/schemas.js";

const OPERATION_OF: Record<PayoutKind, PaymentType> = {
  disbursement: "disbursement",
  collection: "collection",
};

/**
 * The number as 237 + 9 digits, however the API wrote it: `237650000000`, `+237 650…`,
 * `00237…` or the 9 national digits. Our assumption: the published examples use the first
 * form; the others are read the same so a formatting change is not a mismatch.
 */
export function comparablePhone(phone: string): string {
  let digits = phone.replace(/\D/g, "");
  if (digits.startsWith("00")) digits = digits.slice(2);
  return digits.length === 9 ? `237${digits}` : digits;
}

/**
 * What in a POST answer contradicts the payout it answers, or null when nothing does.
 * A field the answer leaves out (or sends as null) cannot contradict anything.
 */
export function answerMismatch(payout: Payout, payment: Payment): string | null {
  const problems: string[] = [];
  if (payment.amount !== undefined && payment.amount !== payout.amount) {
    problems.push(`amount ${payment.amount}, asked ${payout.amount}`);
  }
  if (payment.phoneNumber !== undefined && comparablePhone(payment.phoneNumber) !== payout.phone) {
    problems.push("another phone number");
  }
  const type = payment.paymentType;
  if (type !== undefined && type !== OPERATION_OF[payout.kind]) {
    problems.push(`payment type ${type}, asked ${OPERATION_OF[payout.kind]}`);
  }
  return problems.length === 0 ? null : problems.join("; ");
}

/**
 * Whether a payment found by id (in the portal, or named by a callback) is this payout's:
 * same number, amount and kind. Unlike a 201, it must show the number and amount: a
 * payment that leaves them out cannot be matched to anything.
 */
export function paymentMatches(payment: Payment, payout: Payout): boolean {
  return (
    payment.phoneNumber !== undefined &&
    payment.amount !== undefined &&
    answerMismatch(payout, payment) === null
  );
}

/** The API's status when it is one of the final ones the spec names, else undefined. */
export function finalStatusOf(payment: Payment): "success" | "failed" | "canceled" | undefined {
  const status = knownStatus(payment.status);
  return status === "pending" ? undefined : status;
}
