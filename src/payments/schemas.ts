/**
 * zod schemas of every resource in shared/payment-api-spec.md, and the types derived
 * from them. Responses are read leniently where the spec is silent (unknown extra fields
 * pass; fields the spec does not promise are optional) and strictly where it is not
 * (a wrong type is an error).
 */
import { z } from "zod";
import {
  PaymentStatusSchema,
  PaymentTypeSchema,
  TelecomOperatorSchema,
} from "../model/payment-terms.js";

/**
 * An optional field of an answer: absent, null (the real service sends `"description": null`)
 * or of an unexpected type all read as `undefined`, so one odd field never costs the whole
 * answer. `answerOddities` reports what was dropped, for the log.
 */
function tolerant<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .catch(undefined)
    .transform((value): z.output<T> | undefined => value ?? undefined)
    .optional();
}

/** An id sent as a number is still an id: kept as its decimal text. */
const PaymentIdSchema = z.union([
  z.string().trim().min(1),
  z
    .number()
    .int()
    .nonnegative()
    .transform((id) => String(id)),
]);

/**
 * The published OpenAPI document requires none of the payment's fields, and the real
 * service's own examples send null for some. We require only the id (without it there is
 * nothing to track) and read every other field tolerantly: a status or operator we do not
 * know is kept as text, never refused. Assumed: `amount` and `fee` are whole XAF.
 */
export const PaymentSchema = z.looseObject({
  id: PaymentIdSchema,
  status: tolerant(z.string().min(1)),
  amount: tolerant(z.number().int()),
  fee: tolerant(z.number().int()),
  currency: tolerant(z.string()),
  description: tolerant(z.string()),
  merchantId: tolerant(z.number().int()),
  paymentType: tolerant(z.string().min(1)),
  phoneNumber: tolerant(z.string().min(1)),
  telecomOperator: tolerant(z.string().min(1)),
  // ISO 8601 per the spec; kept as text so an unexpected variant does not lose the payment.
  createdAt: tolerant(z.string()),
  updatedAt: tolerant(z.string()),
});
export type Payment = z.infer<typeof PaymentSchema>;

/** The payment's fields as the OpenAPI document types them (null allowed: the examples send it). */
const PaymentAsPublishedSchema = z.looseObject({
  id: z.string().min(1),
  status: PaymentStatusSchema,
  amount: z.number().int().nullish(),
  fee: z.number().int().nullish(),
  currency: z.string().nullish(),
  description: z.string().nullish(),
  merchantId: z.number().int().nullish(),
  paymentType: PaymentTypeSchema.nullish(),
  phoneNumber: z.string().nullish(),
  telecomOperator: TelecomOperatorSchema.nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});

/**
 * What in a payment answer we read but did not expect (a field of the wrong type, an
 * unknown status or operator, a missing status): worth a log line, never a refusal.
 */
export function paymentOddities(body: unknown): string[] {
  const checked = PaymentAsPublishedSchema.safeParse(body);
  if (checked.success) return [];
  return checked.error.issues.map(
    (issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`,
  );
}

/**
 * The payment, read as PaymentSchema reads it, when `body` is exactly as published (so it
 * has no oddity to report); undefined otherwise (then PaymentSchema and paymentOddities
 * say what it is). One zod pass instead of two for the answers the API normally sends.
 */
export function publishedPayment(body: unknown): Payment | undefined {
  const checked = PaymentAsPublishedSchema.safeParse(body);
  if (!checked.success) return undefined;
  const payment = checked.data;
  // As PaymentSchema reads them: the id trimmed, an empty phone number as absent.
  const id = payment.id.trim();
  if (id === "") return undefined;
  // PaymentSchema reads a null as absent; the published shape allows null everywhere but id.
  // Written onto the object zod just built (never the caller's): a spread into a new object
  // cost 4 µs per answer, more than the zod pass itself (bench/client-overhead).
  return Object.assign(payment, {
    id,
    amount: payment.amount ?? undefined,
    fee: payment.fee ?? undefined,
    currency: payment.currency ?? undefined,
    description: payment.description ?? undefined,
    merchantId: payment.merchantId ?? undefined,
    paymentType: payment.paymentType ?? undefined,
    phoneNumber: payment.phoneNumber || undefined,
    telecomOperator: payment.telecomOperator ?? undefined,
    createdAt: payment.createdAt ?? undefined,
    updatedAt: payment.updatedAt ?? undefined,
  });
}

/**
 * Fields that may carry the service's own words about a payment's outcome. The spec names
 * only `description` and says nothing of its content (the published examples send null on
 * a 201 and a text on a read); the others are our guess at what a service adds on a
 * failure, read only when they hold text.
 */
const REMARK_FIELDS = ["description", "reason", "failureReason", "message"] as const;

/** What the API said about the payment, in its own words: the first text of REMARK_FIELDS. */
export function paymentRemark(payment: Payment): string | undefined {
  for (const field of REMARK_FIELDS) {
    const value: unknown = payment[field];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

/** Body of POST /collect and POST /disburse. */
export const PaymentRequestSchema = z.object({
  amount: z.number().int().positive(),
  phoneNumber: z.string().regex(/^\d{8,15}$/, "digits only, country code first"),
});
export type PaymentRequest = z.infer<typeof PaymentRequestSchema>;

/**
 * `OPERATIONAL` is the only value the spec names; the real service also documents
 * `SUSPENDED`. Unknown values are kept as strings and treated as "not operational". An
 * operator or operation type we do not know is kept too (it simply matches nothing we ask).
 */
export const AvailabilityEntrySchema = z.looseObject({
  operator: z.string().min(1),
  operation: z.looseObject({
    type: z.string().min(1),
    status: z.string().min(1),
  }),
});
export type AvailabilityEntry = z.infer<typeof AvailabilityEntrySchema>;
/** Entries that cannot be read (no operator, no operation) are left out, not fatal. */
export const AvailabilitySchema = z.array(z.unknown()).transform((entries) =>
  entries.flatMap((entry) => {
    const read = AvailabilityEntrySchema.safeParse(entry);
    return read.success ? [read.data] : [];
  }),
);

export const OPERATIONAL = "OPERATIONAL";

/** A name part that is null or absent reads as empty (an empty name means "no account"). */
export const UserInfoSchema = z.looseObject({
  firstName: tolerant(z.string()).transform((name) => name ?? ""),
  lastName: tolerant(z.string()).transform((name) => name ?? ""),
});
export type UserInfo = z.infer<typeof UserInfoSchema>;

export const HttpErrorSchema = z.looseObject({
  message: z.string(),
  statusCode: tolerant(z.number().int()),
  details: tolerant(z.array(z.unknown())),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;
