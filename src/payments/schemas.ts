/**
 * zod schemas of every resource in shared/payment-api-spec.md, and the types derived
 * from them. Responses are read leniently where the spec is silent (unknown extra fields
 * pass; fields the spec does not promise are optional) and strictly where it is not
 * (a wrong type is an error).
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

/**
 * The spec lists the fields but not which are always present. We require what we cannot
 * work without (`id`, `status`) and take the rest as optional. Assumed: `amount` and `fee`
 * are whole XAF (the currency has no minor unit in use).
 */
export const PaymentSchema = z.looseObject({
  id: z.string().min(1),
  status: PaymentStatusSchema,
  amount: z.number().int().optional(),
  fee: z.number().int().optional(),
  currency: z.string().optional(),
  description: z.string().optional(),
  merchantId: z.number().int().optional(),
  paymentType: PaymentTypeSchema.optional(),
  phoneNumber: z.string().optional(),
  telecomOperator: TelecomOperatorSchema.optional(),
  // ISO 8601 per the spec; kept as text so an unexpected variant does not lose the payment.
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Payment = z.infer<typeof PaymentSchema>;

/** Body of POST /collect and POST /disburse. */
export const PaymentRequestSchema = z.object({
  amount: z.number().int().positive(),
  phoneNumber: z.string().regex(/^\d{8,15}$/, "digits only, country code first"),
});
export type PaymentRequest = z.infer<typeof PaymentRequestSchema>;

/**
 * `OPERATIONAL` is the only value the spec names; the real service also documents
 * `SUSPENDED`. Unknown values are kept as strings and treated as "not operational".
 */
export const AvailabilityEntrySchema = z.looseObject({
  operator: TelecomOperatorSchema,
  operation: z.looseObject({
    type: PaymentTypeSchema,
    status: z.string().min(1),
  }),
});
export type AvailabilityEntry = z.infer<typeof AvailabilityEntrySchema>;
export const AvailabilitySchema = z.array(AvailabilityEntrySchema);

export const OPERATIONAL = "OPERATIONAL";

export const UserInfoSchema = z.looseObject({
  firstName: z.string(),
  lastName: z.string(),
});
export type UserInfo = z.infer<typeof UserInfoSchema>;

export const HttpErrorSchema = z.looseObject({
  message: z.string(),
  statusCode: z.number().int(),
  details: z.array(z.unknown()).optional(),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;
