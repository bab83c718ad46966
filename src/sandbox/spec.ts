/**
 * The vocabulary of the Payment API as the spec (shared/payment-api-spec.md) and the real
 * service's published OpenAPI document name it, written here for the sandbox alone. The
 * sandbox stands in for the outside world, so it shares no code with the client
 * (src/payments): a misreading in one cannot hide in the other.
 */
import { z } from "zod";

export const TELECOM_OPERATORS = ["mtn", "orange"] as const;
export const TelecomOperatorSchema = z.enum(TELECOM_OPERATORS);
export type TelecomOperator = z.infer<typeof TelecomOperatorSchema>;

export const PAYMENT_TYPES = ["collection", "disbursement"] as const;
export const PaymentTypeSchema = z.enum(PAYMENT_TYPES);
export type PaymentType = z.infer<typeof PaymentTypeSchema>;

export const PAYMENT_STATUSES = ["pending", "success", "failed", "canceled"] as const;
export const PaymentStatusSchema = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatusSchema>;

/** `operation.status` values of the published OpenAPI document. */
export const OPERATIONAL = "OPERATIONAL";
export const SUSPENDED = "SUSPENDED";

export interface UserInfo {
  firstName: string;
  lastName: string;
}

/**
 * The sandbox's bound on `amount` (the spec gives none): 5,000,000 XAF, the usual cap of a
 * Cameroonian mobile money transfer. The bot's own bound must not be above it.
 */
export const SANDBOX_MAX_AMOUNT_XAF = 5_000_000;

/**
 * Operator of a Cameroonian mobile number by its prefix (after 237), as the operators
 * publish them: MTN 650–654, 670–679, 680–683; Orange 640–642, 655–659, 686–689, 690–699.
 * Other prefixes (Nexttel, Camtel, fixed lines) are not served by the API.
 */
const PREFIXES: ReadonlyArray<readonly [from: number, to: number, operator: TelecomOperator]> = [
  [650, 654, "mtn"],
  [670, 679, "mtn"],
  [680, 683, "mtn"],
  [640, 642, "orange"],
  [655, 659, "orange"],
  [686, 689, "orange"],
  [690, 699, "orange"],
];

export type SandboxPhoneProblem = "empty" | "not_digits" | "wrong_length" | "not_served";

/** A request's `phoneNumber` as the sandbox takes it: `237` and nine digits of MTN or Orange. */
export function checkPhoneNumber(
  value: string,
): { ok: true; operator: TelecomOperator } | { ok: false; problem: SandboxPhoneProblem } {
  if (value === "") return { ok: false, problem: "empty" };
  if (!/^\d+$/.test(value)) return { ok: false, problem: "not_digits" };
  if (!/^237\d{9}$/.test(value)) return { ok: false, problem: "wrong_length" };
  const prefix = Number(value.slice(3, 6));
  const operator = PREFIXES.find(([from, to]) => prefix >= from && prefix <= to)?.[2];
  return operator ? { ok: true, operator } : { ok: false, problem: "not_served" };
}

/** `237670000001` → `+237 670 00 00 01`, for the sandbox's own listing. */
export function displayPhone(phone: string): string {
  const national = phone.slice(3);
  return `+237 ${national.slice(0, 3)} ${national.slice(3, 5)} ${national.slice(5, 7)} ${national.slice(7)}`;
}
