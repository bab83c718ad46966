/** What schedules are run with: the configuration's part for them, resolved once. */
import type { ApprovalBand } from "../../model/approval-rules.js";

export interface ScheduleSettings {
  timeZone: string;
  /** SCHEDULE_DEFAULT_TIME, `HH:MM`. */
  defaultTime: string;
  /** SCHEDULE_CATCH_UP_HOURS in ms: a run later than this after its time is missed. */
  catchUpMs: number;
  /** SCHEDULE_RETRY_HOURS in ms: how long a suspended operator is tried again. */
  retryMs: number;
  /** SCHEDULE_REMINDER_HOURS in ms (0: no reminders). */
  reminderMs: number;
  /** How long the prompt's Confirm stays valid (CONFIRMATION_TTL_SECONDS). */
  confirmationTtlMs: number;
  approvalThresholdXaf: number | undefined;
  /** APPROVAL_RULES: a schedule follows the band of one run's amount. */
  approvalBands?: readonly ApprovalBand[] | undefined;
  /**
   * STEP_UP_THRESHOLD_XAF: a schedule at or over it (its amount per run) is confirmed, and
   * approved, only with the person's PinProof (typed once, in the Mini App, for every run).
   */
  stepUpThresholdXaf?: number | undefined;
  /** APPROVAL_TTL_HOURS in ms. */
  approvalTtlMs: number;
  /**
   * DUPLICATE_WINDOW_MINUTES in ms (0: off): a prompt warns of a payout of the same amount to
   * the same number within it, and a run that repeats one is held.
   */
  duplicateWindowMs?: number;
}
