/**
 * The Payment API's own words for operators, payment types and statuses (the spec's enums),
 * as the payout and everything around it use them.
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

export const FINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ["success", "failed", "canceled"];

/** The status as one of the four the spec names, or undefined for anything else. */
export function knownStatus(status: string | undefined): PaymentStatus | undefined {
  const known = PaymentStatusSchema.safeParse(status);
  return known.success ? known.data : undefined;
}

/** The operator as one the bot knows, or undefined for anything else. */
export function knownOperator(operator: string | undefined): TelecomOperator | undefined {
  const known = TelecomOperatorSchema.safeParse(operator);
  return known.success ? known.data : undefined;
}
