/**
 * Where schedules and their runs are kept. Every write is a compare-and-set on the state
 * it starts from, and queues its notices and appends its audit entry in the same atomic
 * step, so two replicas that both see a run due cannot both record it, and nothing is
 * told that did not happen.
 */
import type { SignersExpected } from "../model/approval-rules.js";
import type { AuditDraft } from "../model/audit.js";
import type { Notice } from "../model/notice.js";
import type {
  RunState,
  Schedule,
  ScheduledRow,
  SchedulePatch,
  ScheduleRun,
  ScheduleState,
} from "../model/schedule.js";

/** What goes with a write, in the same step. */
export interface ScheduleWriteOptions {
  notices?: readonly Notice[];
  audit?: AuditDraft;
}

export interface RunWriteOptions extends ScheduleWriteOptions {
  /** Only while the schedule itself is in one of these states (checked in the same step). */
  scheduleIn?: readonly ScheduleState[];
}

export interface ScheduleMoveOptions extends ScheduleWriteOptions {
  /** Only while the schedule's next run is still this one (undefined: whatever it is). */
  expectRunKey?: string;
  /**
   * Only while the schedule's request for approval is still this one: its `expiresAtMs`,
   * set anew by each request (undefined: whichever). A decision read on one request (a
   * Resume rejected since) never lands on the next.
   */
  expectExpiresAtMs?: number;
  /** Only while every signer counted still stands, read in the same step (batch-store's `signers`). */
  signers?: SignersExpected;
  /** Fields to remove (e.g. the next run once none is left). */
  unset?: ReadonlyArray<keyof SchedulePatch>;
}

export type ScheduleMoveResult =
  | { ok: true; schedule: Schedule }
  /** Not in a state it may be moved from (or its next run moved on): as it is now. */
  | { ok: false; schedule: Schedule | null };

export type RunWriteResult =
  | { ok: true; run: ScheduleRun }
  | { ok: false; run: ScheduleRun | null };

export interface ScheduleStore {
  /**
   * Stores a new schedule, audited, with a scheduled batch's rows (kept while the schedule
   * may run, and for the retention once it ended); false when the id is taken.
   */
  create(schedule: Schedule, audit: AuditDraft, rows?: readonly ScheduledRow[]): Promise<boolean>;
  /** A scheduled batch's rows, in spreadsheet order ([] for any other schedule). */
  rows(id: string): Promise<ScheduledRow[]>;
  get(id: string): Promise<Schedule | null>;
  /**
   * Moves the schedule from one of `from` to `to` (the same state: a patch only), merging
   * `patch`. An `active` schedule with a next run is in the due index, at that time;
   * any other is not.
   */
  move(
    id: string,
    from: readonly ScheduleState[],
    to: ScheduleState,
    patch: SchedulePatch,
    options?: ScheduleMoveOptions,
  ): Promise<ScheduleMoveResult>;
  /** Every schedule, newest first (deleted ones left out), up to `limit`. */
  list(limit: number): Promise<Schedule[]>;
  /** Ids of active schedules whose next run is at or before `atMs`, earliest first. */
  due(atMs: number, limit: number): Promise<string[]>;
  /**
   * Active schedules whose next run is after `fromMs` and at or before `toMs`, with that
   * run's time, earliest first (the runs a reminder is due for).
   */
  upcoming(
    fromMs: number,
    toMs: number,
    limit: number,
  ): Promise<Array<{ id: string; atMs: number }>>;
  /** A run as recorded, or null when it was never handled. */
  run(scheduleId: string, key: string): Promise<ScheduleRun | null>;
  /**
   * Records `run` when its recorded state is one of `from` ("none": never recorded). Held
   * runs are indexed (heldRuns) while they are held.
   */
  writeRun(
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    options?: RunWriteOptions,
  ): Promise<RunWriteResult>;
  /**
   * Runs recorded `sending` at or before `beforeMs` (by their updatedAtMs), oldest first, up
   * to `limit`: a run still there long after is one whose sender died before it was done.
   */
  sendingRuns(beforeMs: number, limit: number): Promise<ScheduleRun[]>;
  /** Every run now held, waiting for its owner. */
  heldRuns(): Promise<ScheduleRun[]>;
}
