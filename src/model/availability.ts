/**
 * Operator availability as the bot last saw it: each operator's disbursements and
 * collections, up or down, and since when. `OPERATIONAL` is the only status that means up
 * (the API's word); anything else it says, or an operation it does not list, is down.
 */
import { z } from "zod";
import {
  PAYMENT_TYPES,
  type PaymentType,
  PaymentTypeSchema,
  TELECOM_OPERATORS,
  type TelecomOperator,
  TelecomOperatorSchema,
} from "./payment-terms.js";

export const OPERATIONAL = "OPERATIONAL";
/** Written for an operation the API's answer does not list. */
export const NOT_LISTED = "NOT_LISTED";

/** What the bot keeps of a status text: an upper-case word, as the API writes them. */
export const AvailabilityStatusSchema = z.string().regex(/^[A-Z][A-Z0-9_]{0,39}$/);

/** One operation of one operator, as last seen. */
export const OperationStateSchema = z.object({
  operator: TelecomOperatorSchema,
  operation: PaymentTypeSchema,
  /** The status as the API wrote it (NOT_LISTED when it was missing). */
  status: AvailabilityStatusSchema,
  up: z.boolean(),
  /** When it was first seen in this up-or-down state: the last change. */
  sinceMs: z.number().int(),
  /** True until a change is seen: `sinceMs` is then only when the bot first looked. */
  firstSeen: z.boolean(),
});
export type OperationState = z.infer<typeof OperationStateSchema>;

/** An observation: what the API says about one operation now. */
export interface OperationObservation {
  operator: TelecomOperator;
  operation: PaymentType;
  status: string;
}

/** Every operation the bot watches: each operator's disbursements and collections. */
export const WATCHED_OPERATIONS: ReadonlyArray<{
  operator: TelecomOperator;
  operation: PaymentType;
}> = TELECOM_OPERATORS.flatMap((operator) =>
  PAYMENT_TYPES.map((operation) => ({ operator, operation })),
);

/** A status kept as the API wrote it when it reads as one word; anything else as UNREADABLE. */
export function keptStatus(status: string): string {
  return AvailabilityStatusSchema.safeParse(status).success ? status : "UNREADABLE";
}

export function isUp(status: string): boolean {
  return status === OPERATIONAL;
}
