/**
 * What the schedule steps people take (schedules.ts) take and come to: /schedule's input,
 * what preparing it gives, and the one result shape of every later step.
 */
import type { Locale } from "../../model/locale.js";
import type { Role } from "../../model/roles.js";
import type { Recurrence, Schedule } from "../../model/schedule.js";
import type { PrepareFailure } from "../types.js";
import type { ScheduleRepeats } from "./repeats.js";
import type { RunTime } from "./when.js";

export interface SchedulePrepareInput {
  recurrence: Recurrence;
  /** The recipient's number as typed (validated here). */
  phone: string;
  amount: string;
  note?: string;
  ownerId: number;
  ownerRole: Role;
  chatId: number;
  locale: Locale;
}

export type SchedulePrepareResult =
  | { outcome: "prepared"; schedule: Schedule; runs: RunTime[]; repeats?: ScheduleRepeats }
  | ({ outcome: "refused" } & PrepareFailure)
  | { outcome: "refused"; reason: "no_runs" };

export type ScheduleStepResult =
  | { outcome: "done"; schedule: Schedule }
  /** At or over the threshold: it now waits for an approver. */
  | { outcome: "approval_requested"; schedule: Schedule }
  | { outcome: "forbidden"; schedule: Schedule }
  /** At or over STEP_UP_THRESHOLD_XAF without the asker's fresh PinProof: nothing moved. */
  | { outcome: "step_up_required"; schedule: Schedule }
  /** The approver got their role after the schedule was made: someone who had it then must. */
  | { outcome: "too_new"; schedule: Schedule }
  | { outcome: "expired"; schedule: Schedule }
  /** Nothing left to run (a one-off whose time has passed). */
  | { outcome: "no_runs"; schedule: Schedule }
  /** Resume of a schedule an admin or an approver paused, by someone who is neither. */
  | { outcome: "paused_by_staff"; schedule: Schedule }
  | { outcome: "already"; schedule: Schedule }
  /** APPROVAL_RULES: a signature short of the rule recorded; it waits on. */
  | { outcome: "signed"; schedule: Schedule; given: number; needed: number }
  | { outcome: "already_signed"; schedule: Schedule }
  | { outcome: "not_found" };
