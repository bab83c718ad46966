/**
 * A batch payout: a spreadsheet of rows a payer uploaded, checked row by row, confirmed
 * once, and paid by a background worker, each row as its own payout (id `{batchId}-{row}`),
 * through the same claim-then-send path as a single payout.
 *
 *   checking ──▶ ready ──Confirm──▶ running ──every row handled──▶ sent ──rows final──▶ done
 *      │           └──Cancel / expiry──▶ cancelled
 *      └──Cancel──▶ cancelled
 *   running ──Stop──▶ sent (the rows not yet claimed are stopped; the others finish)
 * At or over APPROVAL_THRESHOLD_XAF, Confirm asks for approval of the batch as one:
 *   ready ──Confirm──▶ awaiting_approval ──Approve──▶ running
 *                            ├──Reject──▶ rejected
 *                            └──APPROVAL_TTL_HOURS──▶ cancelled
 * A scheduled batch (a file sent with the caption `/schedule WHEN`) is checked and previewed
 * the same way, but its Confirm (or approval) makes a schedule of its payable rows instead
 * of paying them: ready (──▶ awaiting_approval) ──▶ scheduled. Each run of that schedule is
 * a batch of its own (`run`), id `{scheduleId}-{runKey}`, which goes from checking straight
 * to running: the schedule's Confirm (and approval) covers it.
 */
import { z } from "zod";
import { ApprovalRuleSchema, SignaturesSchema } from "./approval-rules.js";
import { PAYOUT_STATES, type PayoutState } from "./lifecycle.js";
import { LocaleSchema } from "./locale.js";
import { TelecomOperatorSchema } from "./payment-terms.js";
import { ROLES } from "./roles.js";
import { RecurrenceSchema } from "./schedule.js";

export const BATCH_STATES = [
  "checking",
  "ready",
  "awaiting_approval",
  "running",
  "sent",
  "done",
  "cancelled",
  "rejected",
  /** A scheduled batch confirmed (and approved): its rows now live with its schedule. */
  "scheduled",
] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/** States a batch never leaves. */
export const FINAL_BATCH_STATES: readonly BatchState[] = [
  "done",
  "cancelled",
  "rejected",
  "scheduled",
];

/**
 * States in which the worker has something to do for the batch (a batch awaiting approval:
 * expire it once nobody decided within APPROVAL_TTL_HOURS).
 */
export const WORKED_BATCH_STATES: readonly BatchState[] = [
  "checking",
  "awaiting_approval",
  "running",
  "sent",
];

/** Why a row will not be paid (found by the checks), or was not (found while running). */
export const ROW_PROBLEMS = [
  "bad_phone",
  /** The recipient column names an alias no saved recipient has. */
  "unknown_alias",
  "bad_amount",
  "no_account",
  "operator_unavailable",
  "duplicate",
  /** The same number and amount paid (or on its way) within DUPLICATE_WINDOW_MINUTES. */
  "recent_duplicate",
  "name_mismatch",
  "lookup_failed",
  "over_limit",
  "stopped",
  "not_allowed",
] as const;
export type RowProblem = (typeof ROW_PROBLEMS)[number];

/** What a row repeats: an earlier payout, or a row of another batch not paid yet. */
export const RowRepeatSchema = z.discriminatedUnion("source", [
  z.object({
    source: z.literal("payout"),
    payoutId: z.string(),
    atMs: z.number().int(),
    by: z.number().int(),
    state: z.enum(PAYOUT_STATES),
  }),
  z.object({
    source: z.literal("batch"),
    batchId: z.string(),
    row: z.number().int().positive(),
    atMs: z.number().int(),
    by: z.number().int(),
    state: z.enum(BATCH_STATES),
  }),
]);
export type RowRepeat = z.infer<typeof RowRepeatSchema>;

export const BatchRowSchema = z.object({
  /** Its row in the spreadsheet (the header is row 1). */
  row: z.number().int().positive(),
  /** As typed. */
  phoneText: z.string(),
  amountText: z.string(),
  /** Normalised (237…), once the number reads as one. */
  phone: z.string().optional(),
  operator: TelecomOperatorSchema.optional(),
  amount: z.number().int().positive().optional(),
  note: z.string().optional(),
  /** The name the payer expects (the file's `name` column). */
  expectedName: z.string().optional(),
  /** The registered name, once looked up. */
  name: z.string().optional(),
  /** Set once the row was checked (name looked up, or a problem found). */
  checked: z.boolean().optional(),
  problem: z.enum(ROW_PROBLEMS).optional(),
  /** What is wrong, for a person: the phone or amount problem, the row it repeats… */
  problemDetail: z.string().optional(),
  /**
   * The earlier payout (or other batch's row) of the same number and amount. Kept when the
   * payer includes the row anyway (its problem is then cleared).
   */
  repeats: RowRepeatSchema.optional(),
});
export type BatchRow = z.infer<typeof BatchRowSchema>;

/** How one row stands: from its payout, or `skipped` when it was not (to be) paid. */
export type RowStanding = "paid" | "failed" | "pending" | "unknown" | "skipped";

/**
 * How a payable row stands, from its payout's state (none, or never claimed: it was not
 * paid). A paid row's fee is its payout's (chargedFee: paid only).
 */
export function standingOfState(state: PayoutState | undefined): RowStanding {
  switch (state) {
    case "success":
      return "paid";
    case "failed":
    case "canceled":
    case "rejected_by_api":
      return "failed";
    case "submitting":
    case "pending":
      return "pending";
    case "unknown":
      return "unknown";
    default:
      return "skipped";
  }
}

/** Where the rows stand, counted from their payouts (the progress and the summary). */
export const BatchTallySchema = z.object({
  paid: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Claimed or sent, waiting for the API's final status. */
  pending: z.number().int().nonnegative(),
  unknown: z.number().int().nonnegative(),
  /** Not paid: a problem found by the checks, a cap reached, or stopped. */
  skipped: z.number().int().nonnegative(),
  /** What the paid rows came to, and their fees (XAF). */
  paidXaf: z.number().int().nonnegative(),
  feesXaf: z.number().int().nonnegative(),
});
export type BatchTally = z.infer<typeof BatchTallySchema>;

/** A count with nothing counted yet. */
export function emptyTally(): BatchTally {
  return { paid: 0, failed: 0, pending: 0, unknown: 0, skipped: 0, paidXaf: 0, feesXaf: 0 };
}

export const BatchSchema = z.object({
  id: z.string().min(6),
  state: z.enum(BATCH_STATES),
  initiatorId: z.number().int(),
  /** The initiator's role at the upload (the actor of the rows' payouts). */
  initiatorRole: z.enum(ROLES),
  chatId: z.number().int(),
  locale: LocaleSchema,
  fileName: z.string(),
  rowCount: z.number().int().nonnegative(),
  createdAtMs: z.number().int(),
  updatedAtMs: z.number().int(),
  /** The message edited with the checks' and the payments' progress. */
  progressMessageId: z.number().int().optional(),
  /** The preview's message (its buttons are taken away once decided). */
  previewMessageId: z.number().int().optional(),
  /** Rows checked so far, in order (the checks resume from here). */
  checkedRows: z.number().int().nonnegative(),
  /** When the checks began, for the rows-per-minute of the progress. */
  checkStartedAtMs: z.number().int().optional(),
  /** Rows handled by the worker so far, in order (it resumes from here). */
  doneRows: z.number().int().nonnegative(),
  /** Payable rows and their total, once checked. */
  payableRows: z.number().int().nonnegative().optional(),
  totalXaf: z.number().int().nonnegative().optional(),
  /** After this, the preview can no longer be confirmed. */
  expiresAtMs: z.number().int().optional(),
  confirmedAtMs: z.number().int().optional(),
  /** When its Confirm sent it for approval (it is confirmed, `confirmedAtMs`, once approved). */
  approvalRequestedAtMs: z.number().int().optional(),
  /** Awaiting approval: nobody deciding by then expires it. */
  approvalExpiresAtMs: z.number().int().optional(),
  /** APPROVAL_RULES: the band of its total when it was sent for approval, and who signed. */
  approvalRule: ApprovalRuleSchema.optional(),
  signatures: SignaturesSchema.optional(),
  /** Who approved or rejected it (not its initiator), and when. */
  approvedBy: z.number().int().optional(),
  rejectedBy: z.number().int().optional(),
  decidedAtMs: z.number().int().optional(),
  stoppedBy: z.number().int().optional(),
  tally: BatchTallySchema.optional(),
  /** When every payable row had been handled (sent, or not). */
  sentAtMs: z.number().int().optional(),
  finishedAtMs: z.number().int().optional(),
  /** SHA-256 of the uploaded bytes (hex): the same file sent again is recognised. */
  fileSha256: z.string().optional(),
  /** The rows that repeat earlier payouts and were included by the payer's own choice. */
  includedRepeats: z.number().int().positive().optional(),
  /**
   * Counts the batch's moves (every change of state adds one): a step that read the batch
   * moves it only if nothing moved it since (an Include and its new preview between a
   * Confirm's read and its move, say).
   */
  version: z.number().int().nonnegative().optional(),
  /** A scheduled batch: its Confirm makes a schedule with this plan (see above). */
  plan: RecurrenceSchema.optional(),
  /** A run of a scheduled batch: which schedule and run it pays. */
  run: z.object({ scheduleId: z.string(), runKey: z.string() }).optional(),
});
export type Batch = z.infer<typeof BatchSchema>;
export type BatchPatch = Partial<Omit<Batch, "id" | "state">>;

/** The payout of a batch's row: one id per row, so a row can never become two payouts. */
export function rowPayoutId(batchId: string, row: number): string {
  return `${rowPayoutIdPrefix(batchId)}${row}`;
}

/** What every row payout id of batch `batchId` starts with (its row number follows). */
export function rowPayoutIdPrefix(batchId: string): string {
  return `${batchId}-`;
}

export function isFinalBatchState(state: BatchState): boolean {
  return FINAL_BATCH_STATES.includes(state);
}
