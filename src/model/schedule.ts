/**
 * A scheduled (one-off) or recurring payout: a recipient, an amount and a note paid at
 * each run time of a recurrence, in TIME_ZONE, by the payer who set it up (its owner).
 *
 *   awaiting_confirmation ──Confirm──▶ active ⇄ paused ──Delete──▶ deleted
 *        │     └──Confirm at or over the threshold──▶ awaiting_approval ──Approve──▶ active
 *        │                                                  ├──Reject──▶ rejected
 *        │                                                  └──APPROVAL_TTL_HOURS──▶ expired
 *        └──Cancel / TTL──▶ cancelled / expired
 *   active ──last run done──▶ finished
 *   paused ──Resume at or over a threshold──▶ awaiting_approval ──Approve──▶ active
 *                                                  └──Reject / TTL──▶ paused
 *
 * Each run has a stable key (its local date and time, `202612240900`); its payout's id is
 * `{scheduleId}-{runKey}`, so a run can be created and claimed once only, whatever the
 * replicas. A run is `due` → `sent` (its payout follows the payout table), `held` (→ `sent`
 * by Send anyway / `skipped`), `skipped` (Skip this run) or `missed` (its time passed
 * beyond SCHEDULE_CATCH_UP_HOURS while no replica ran: never sent).
 */
import { z } from "zod";
import { ApprovalRuleSchema, SignaturesSchema } from "./approval-rules.js";
import { PAYOUT_STATES } from "./lifecycle.js";
import { LocaleSchema } from "./locale.js";
import { TelecomOperatorSchema } from "./payment-terms.js";
import { ROLES } from "./roles.js";

/** `HH:MM`, 24-hour clock. */
export const TimeOfDaySchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);

/** Day of the week, ISO numbering: 1 Monday … 7 Sunday. */
export const WeekdaySchema = z.number().int().min(1).max(7);

export const RecurrenceSchema = z.discriminatedUnion("kind", [
  /** Once, on `date` (YYYY-MM-DD) at `time`. */
  z.object({
    kind: z.literal("once"),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    time: TimeOfDaySchema,
  }),
  /** Every month on `day` (a day past the month's end: its last day) or its last day. */
  z.object({
    kind: z.literal("monthly"),
    day: z.union([z.number().int().min(1).max(31), z.literal("last")]),
    time: TimeOfDaySchema,
  }),
  /** Every week on `weekday`. */
  z.object({ kind: z.literal("weekly"), weekday: WeekdaySchema, time: TimeOfDaySchema }),
]);
export type Recurrence = z.infer<typeof RecurrenceSchema>;

export const SCHEDULE_STATES = [
  "awaiting_confirmation",
  "awaiting_approval",
  "active",
  "paused",
  "finished",
  "deleted",
  "cancelled",
  "expired",
  "rejected",
] as const;
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

/** What can happen to a schedule, each from the states it may start in, to one state. */
export const SCHEDULE_MOVES = {
  confirm: { from: ["awaiting_confirmation"], to: "active" },
  request_approval: { from: ["awaiting_confirmation"], to: "awaiting_approval" },
  approve: { from: ["awaiting_approval"], to: "active" },
  reject: { from: ["awaiting_approval"], to: "rejected" },
  cancel: { from: ["awaiting_confirmation"], to: "cancelled" },
  /** Its owner lost the standing to pay (removed, or a role that may not pay). */
  owner_stopped: { from: ["awaiting_confirmation", "awaiting_approval"], to: "cancelled" },
  expire: { from: ["awaiting_confirmation", "awaiting_approval"], to: "expired" },
  pause: { from: ["active"], to: "paused" },
  resume: { from: ["paused"], to: "active" },
  /** Resume at or over a threshold: a second person decides again. */
  request_resume: { from: ["paused"], to: "awaiting_approval" },
  /** A Resume refused, or not decided in time: it stays paused, as it was. */
  refuse_resume: { from: ["awaiting_approval"], to: "paused" },
  delete: { from: ["active", "paused", "finished"], to: "deleted" },
  finish: { from: ["active"], to: "finished" },
} as const satisfies Record<string, { from: readonly ScheduleState[]; to: ScheduleState }>;
export type ScheduleMove = keyof typeof SCHEDULE_MOVES;

/** The state `move` leads to from `state`, or null when it may not be made from there. */
export function nextScheduleState(state: ScheduleState, move: ScheduleMove): ScheduleState | null {
  const rule = SCHEDULE_MOVES[move];
  return (rule.from as readonly ScheduleState[]).includes(state) ? rule.to : null;
}

/** States a schedule never leaves: the stores keep it for the retention, then it goes. */
export const ENDED_SCHEDULE_STATES: readonly ScheduleState[] = [
  "finished",
  "deleted",
  "cancelled",
  "expired",
  "rejected",
];

/** States whose runs are worked on by the scheduler. */
export const RUNNING_SCHEDULE_STATES: readonly ScheduleState[] = ["active"];

export const ScheduleSchema = z.object({
  /** Random, 10 characters of base64url; a letter or digit first. */
  id: z.string().regex(/^[A-Za-z0-9][\w-]{5,15}$/),
  state: z.enum(SCHEDULE_STATES),
  recurrence: RecurrenceSchema,
  /** 12 digits, 237 first. */
  phone: z.string().regex(/^237\d{9}$/),
  operator: TelecomOperatorSchema,
  /** The registered name when the schedule was made (each run checks it again). */
  recipientName: z.string(),
  /** Whole XAF, per run (a batch's: the total of its rows). */
  amount: z.number().int().positive(),
  /**
   * A scheduled batch (payroll): its rows are kept with the schedule (ScheduleStore.rows),
   * and each run pays them as a batch of its own. `phone`, `operator` and `recipientName`
   * are then its first row's (shown nowhere; the rows are what is paid).
   */
  batch: z
    .object({
      /** The batch whose preview was confirmed (the rows' source). */
      sourceId: z.string(),
      fileName: z.string(),
      rowCount: z.number().int().positive(),
    })
    .optional(),
  note: z.string().optional(),
  ownerId: z.number().int(),
  ownerRole: z.enum(ROLES),
  chatId: z.number().int(),
  locale: LocaleSchema,
  createdAtMs: z.number().int(),
  updatedAtMs: z.number().int(),
  /** The prompt (then the approval) is refused after this. */
  expiresAtMs: z.number().int(),
  /** The prompt, edited as the schedule moves on. */
  messageId: z.number().int().optional(),
  /** The next run still to handle, and its key; absent when none is left. */
  nextRunAtMs: z.number().int().optional(),
  nextRunKey: z.string().optional(),
  /** Runs handled so far (sent, held, skipped or missed). */
  runCount: z.number().int().nonnegative(),
  approvedBy: z.number().int().optional(),
  /** APPROVAL_RULES: the band of one run's amount when sent for approval, and who signed. */
  approvalRule: ApprovalRuleSchema.optional(),
  signatures: SignaturesSchema.optional(),
  /** Who paused or deleted it last (0: the bot, e.g. its owner lost the standing to pay). */
  changedBy: z.number().int().optional(),
  /**
   * Why it is paused: the bot paused it (its owner may no longer pay), or an admin or an
   * approver did (`staff`: only an admin or an approver may resume it).
   */
  pausedBecause: z.enum(["owner_not_allowed", "staff"]).optional(),
  /**
   * When the bot cancelled or paused it because its owner lost the standing to pay: the
   * staff change's time, so the change's summary finds it (payouts/schedule/standing.ts).
   */
  stoppedAtMs: z.number().int().optional(),
  /** Waiting for approval to resume (rejected or expired: back to paused, not ended). */
  resuming: z.boolean().optional(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;
export type SchedulePatch = Partial<Omit<Schedule, "id" | "state">>;

/** `sending`: its payout is being claimed (Skip and Send anyway leave it alone). */
export const RUN_STATES = ["due", "sending", "sent", "held", "skipped", "missed"] as const;
export type RunState = (typeof RUN_STATES)[number];

/** Why a run waits for its owner instead of being sent. */
export const HOLD_REASONS = [
  "name_changed",
  "no_account",
  "operator_unavailable",
  "over_limit",
  "lookup_failed",
  /** A payout of the same amount to the number within DUPLICATE_WINDOW_MINUTES. */
  "duplicate",
] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

export const ScheduleRunSchema = z.object({
  scheduleId: z.string(),
  /** Local date and time of the run, `YYYYMMDDHHMM` in TIME_ZONE: stable across replicas. */
  key: z.string().regex(/^\d{12}$/),
  atMs: z.number().int(),
  state: z.enum(RUN_STATES),
  /** The run's payout (`{scheduleId}-{key}`), once created. */
  payoutId: z.string().optional(),
  /** A scheduled batch's run: its batch (`{scheduleId}-{key}`), once created. */
  batchId: z.string().optional(),
  heldBecause: z.enum(HOLD_REASONS).optional(),
  /** For `name_changed`: the name registered at run time. */
  currentName: z.string().optional(),
  /** For `duplicate`: when the payout it repeats was made, and its state then. */
  repeatsAtMs: z.number().int().optional(),
  repeatsState: z.enum(PAYOUT_STATES).optional(),
  /** When a suspended operator was first seen for this run (retried until RETRY_HOURS). */
  retryingSinceMs: z.number().int().optional(),
  /** The owner was reminded of it. */
  remindedAtMs: z.number().int().optional(),
  updatedAtMs: z.number().int(),
  /** Who sent it anyway or skipped it. */
  decidedBy: z.number().int().optional(),
});
export type ScheduleRun = z.infer<typeof ScheduleRunSchema>;

/**
 * One row of a scheduled batch, as kept with its schedule: what its preview showed and its
 * Confirm covered (the row's number, the name registered then, the amount, the note).
 */
export const ScheduledRowSchema = z.object({
  row: z.number().int().positive(),
  phone: z.string().regex(/^237\d{9}$/),
  operator: TelecomOperatorSchema,
  name: z.string(),
  amount: z.number().int().positive(),
  note: z.string().optional(),
});
export type ScheduledRow = z.infer<typeof ScheduledRowSchema>;

/** The batch of a scheduled batch's run: stable, so a second replica or a restart finds it. */
export function runBatchId(scheduleId: string, runKey: string): string {
  return `${scheduleId}-${runKey}`;
}

/** The payout id of a run: stable, so creating it twice fails and claiming it twice cannot. */
export function runPayoutId(scheduleId: string, runKey: string): string {
  return `${scheduleId}-${runKey}`;
}
