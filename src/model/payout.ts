/**
 * The payout record: what the bot knows about one collection or disbursement it was asked
 * to make. Stored by the stores, validated with this schema on every read.
 */
import { z } from "zod";
import { ApprovalRuleSchema, SignaturesSchema } from "./approval-rules.js";
import { PAYOUT_STATES } from "./lifecycle.js";
import { LocaleSchema } from "./locale.js";
import { PaymentStatusSchema, TelecomOperatorSchema } from "./payment-terms.js";

export const PayoutKindSchema = z.enum(["disbursement", "collection"]);
export type PayoutKind = z.infer<typeof PayoutKindSchema>;

export const PayoutSchema = z.object({
  /** Opaque random token; also the payload of this payout's inline buttons. */
  id: z.string().min(8),
  kind: PayoutKindSchema,
  state: z.enum(PAYOUT_STATES),
  /** 12 digits, 237 first. */
  phone: z.string().regex(/^237\d{9}$/),
  /** From the number's prefix; the API's own answer replaces it once known. */
  operator: TelecomOperatorSchema,
  recipientName: z.string(),
  /** Whole XAF. */
  amount: z.number().int().positive(),
  note: z.string().optional(),
  /** Telegram user id of the staff member who started it. */
  initiatorId: z.number().int(),
  chatId: z.number().int(),
  /** The confirmation prompt, edited as the payout moves on. */
  messageId: z.number().int().optional(),
  locale: LocaleSchema,
  createdAtMs: z.number().int(),
  updatedAtMs: z.number().int(),
  /** After this, Confirm is refused. */
  expiresAtMs: z.number().int(),
  /** Who claimed the submission (see PayoutStore.transition). */
  claimId: z.string().optional(),
  submittedAtMs: z.number().int().optional(),
  /**
   * When the request was let go, on the store's clock (Redis TIME), stamped by the last
   * atomic check before sending. Unset: nothing was sent for this payout.
   */
  sentAtMs: z.number().int().optional(),
  paymentId: z.string().optional(),
  /** Last status the API reported. */
  apiStatus: PaymentStatusSchema.optional(),
  fee: z.number().int().optional(),
  /**
   * What the API said about a failed or canceled payment (its description), one clean line:
   * shown to the payer with the outcome.
   */
  apiRemark: z.string().optional(),
  /** Why the API refused, or why the outcome is unknown (technical, for staff). */
  errorMessage: z.string().optional(),
  errorStatusCode: z.number().int().optional(),
  /**
   * Set when the bot itself held the request back: `storage_not_confirmed`, its storage
   * could not confirm the claim was persisted (REDIS_DURABILITY), so nothing was sent.
   */
  heldBackBecause: z.enum(["storage_not_confirmed"]).optional(),
  settledAtMs: z.number().int().optional(),
  /** Admin who resolved an unknown payout. */
  resolvedBy: z.number().int().optional(),
  /** Four-eyes approval: after this, a payout awaiting approval expires (APPROVAL_TTL_HOURS). */
  approvalExpiresAtMs: z.number().int().optional(),
  /**
   * The approval rule's band this payout fell in when it was asked for (APPROVAL_RULES):
   * how many distinct people must sign, in which roles. Absent: one approver or admin.
   */
  approvalRule: ApprovalRuleSchema.optional(),
  /**
   * The signatures given so far, oldest first (the last one, which sent it, included once
   * approved). A signer who lost their standing since is dropped at the next signature.
   */
  signatures: SignaturesSchema.optional(),
  /** The approver or admin who approved it (never its initiator): the last signature. */
  approvedBy: z.number().int().optional(),
  /** The approver or admin who rejected it, and the reason they gave (if any). */
  rejectedBy: z.number().int().optional(),
  rejectionReason: z.string().optional(),
  /**
   * Cancelled because its initiator lost their standing (removed, or a role that may not
   * pay): the admin who made that staff change (0: the STAFF setting at start).
   */
  cancelledBy: z.number().int().optional(),
  /** When an approver decided (or the request was withdrawn, or cancelled with its payer). */
  decidedAtMs: z.number().int().optional(),
  /**
   * The calendar day (YYYY-MM-DD in TIME_ZONE) whose spending limits count this payout:
   * reserved at Confirm, given back by a move into a state that paid nothing.
   */
  limitDay: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
  /**
   * The batch this payout is a row of (its id is `{batchId}-{row}`): it is never its
   * initiator's open prompt, and its payer hears of it in the batch's summary.
   */
  batchId: z.string().optional(),
  /**
   * Paid by a saved recipient's alias (as saved), with the name saved with it and when it was
   * saved: the prompt says so when the name registered now differs.
   */
  recipientAlias: z.string().optional(),
  savedName: z.string().optional(),
  savedAtMs: z.number().int().optional(),
  /** The schedule this payout is a run of (its id is `{scheduleId}-{runKey}`). */
  scheduleId: z.string().optional(),
  /** An earlier payout of the same amount to the same number, warned of in the prompt. */
  duplicateOf: z.string().optional(),
  /** Set once the payer was told the final status. */
  notifiedAtMs: z.number().int().optional(),
  /** Set once the payer and admins were told the payout looks stuck. */
  stuckReportedAtMs: z.number().int().optional(),
  /**
   * While `unknown`: a payment that a status callback reported for this number and amount.
   * Only a hint shown to admins (/unknown); /resolve checks it with the API like any id.
   */
  candidatePaymentId: z.string().optional(),
  /**
   * Set when polling gave up: still pending at the retention. The payout stays pending (money
   * may yet move) for an admin to look at; nothing polls it again.
   */
  trackingStoppedAtMs: z.number().int().optional(),
  /** Polls spent on it so far (for the backoff schedule). */
  pollCount: z.number().int().nonnegative().optional(),
});
export type Payout = z.infer<typeof PayoutSchema>;

/**
 * The fee a payout cost, the one rule every message, export, digest and batch report
 * follows: the API's fee once the payment succeeded. A payment that failed, was cancelled or
 * is not final moved no money, so it shows no fee, even when the API's record has one.
 */
export function chargedFee(payout: Pick<Payout, "state" | "fee">): number | undefined {
  return payout.state === "success" ? payout.fee : undefined;
}

/**
 * Fields a transition may set besides the state. `id`, `kind` and `state` never change that
 * way, nor what the payout is searched by (its name, note and alias: indexed at creation).
 */
export type PayoutPatch = Partial<
  Omit<Payout, "id" | "kind" | "state" | "recipientName" | "note" | "recipientAlias">
>;
