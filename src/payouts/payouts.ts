/**
 * The payout steps, built together from one set of options: what the bot's features, the
 * tracker and the webhook call. Each step is its own module; this only wires them.
 */

import { silentLogger } from "../logger.js";
import type { Metrics } from "../metrics/metrics.js";
import { MAX_RECIPIENTS } from "../model/recipient.js";
import { DEFAULT_TIME_ZONE } from "../time.js";
import { AnswerRecords } from "./answer-records.js";
import { Approval } from "./approval.js";
import { BatchApproval } from "./batch/approval.js";
import { Batches } from "./batch/batch.js";
import { BatchWorker } from "./batch/worker.js";
import { Duplicates } from "./duplicates.js";
import { ExportRecords } from "./exports.js";
import { Limits } from "./limits.js";
import { Lookups } from "./lookups.js";
import { StaffNames } from "./people.js";
import { Pins } from "./pin.js";
import { argon2Hasher } from "./pin-hash.js";
import { Preparation } from "./prepare.js";
import { Recipients } from "./recipients.js";
import { Resolution } from "./resolution.js";
import { BatchSchedules } from "./schedule/batch-schedules.js";
import { ScheduleRuns } from "./schedule/runs.js";
import { Scheduler } from "./schedule/scheduler.js";
import { type ScheduleSettings, Schedules } from "./schedule/schedules.js";
import { Sessions } from "./sessions.js";
import { Settlement } from "./settlement.js";
import { StaffChanges } from "./staff.js";
import { Submission } from "./submission.js";
import type { BatchSettings, PayoutRules, PayoutsOptions, StepContext } from "./types.js";

/** What batches do without settings: 1,000 rows, 1 MB, an hour to confirm, 5 slots left. */
export const DEFAULT_BATCH_SETTINGS: BatchSettings = {
  maxRows: 1000,
  maxBytes: 1_000_000,
  previewTtlMs: 3_600_000,
  leave: 5,
  stuckAfterMs: 24 * 3_600_000,
};

export interface Payouts {
  readonly lookups: Lookups;
  readonly preparation: Preparation;
  readonly submission: Submission;
  readonly approval: Approval;
  readonly limits: Limits;
  readonly settlement: Settlement;
  readonly resolution: Resolution;
  readonly batches: Batches;
  /** Approve / Reject of a batch sent for approval. */
  readonly batchApproval: BatchApproval;
  /** Staff changes (`/staff`, `STAFF` at start) and what they end. */
  readonly staff: StaffChanges;
  /** What an /export leaves in the audit log. */
  readonly exports: ExportRecords;
  /** A person's chosen language and a chat's open /pay dialog. */
  readonly sessions: Sessions;
  /** The names Telegram gives staff members, saved when they change. */
  readonly staffNames: StaffNames;
  /** Saved recipients: /save, /recipients, /forget, and aliases wherever a number goes. */
  readonly recipients: Recipients;
  /** Scheduled and recurring payouts: /schedule, its buttons, /schedules. */
  readonly schedules: Schedules;
  /** Send anyway and Skip on a schedule's runs (the same steps as the scheduler's). */
  readonly scheduleRuns: ScheduleRuns;
  /** Scheduled batches: a confirmed batch file made a schedule, and each run's batch. */
  readonly batchSchedules: BatchSchedules;
  /** The loop that sends each scheduled run once (started by the app). */
  createScheduler(options?: {
    tickMs?: number;
    restMs?: number;
    owner?: string;
    metrics?: Metrics;
  }): Scheduler;
  /** Step-up PINs: set, checked (a right one proves it for a big Confirm), reset. */
  readonly pins: Pins;
  /** The worker that checks and pays batches (started by the app, with the other loops). */
  createBatchWorker(options?: {
    tickMs?: number;
    restMs?: number;
    concurrency?: number;
    metrics?: Metrics;
  }): BatchWorker;
}

/** No approvals, no caps, no duplicate warning: what `createPayouts` does without rules. */
export const NO_RULES: PayoutRules = {
  approvalThresholdXaf: undefined,
  approvalTtlMs: 24 * 3_600_000,
  payerDailyLimitXaf: undefined,
  merchantDailyLimitXaf: undefined,
  duplicateWindowMs: 0,
  timeZone: DEFAULT_TIME_ZONE,
};

export function createPayouts(options: PayoutsOptions): Payouts {
  const context: StepContext = {
    gateway: options.gateway,
    stores: options.stores,
    log: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
  };
  const lookups = new Lookups({
    gateway: options.gateway,
    now: context.now,
    availabilityCacheMs: options.availabilityCacheMs,
  });
  const onNoticeQueued = options.onNoticeQueued ?? (() => {});
  const rules = options.rules ?? NO_RULES;
  const records = new AnswerRecords(context, onNoticeQueued);
  const limits = new Limits(context, rules);
  const duplicates = new Duplicates(context, rules.duplicateWindowMs);
  const approval = new Approval(context, rules, { limits, duplicates }, onNoticeQueued);
  const { confirmationTtlSeconds, statusPollIntervalMs } = options;
  const batch = { ...DEFAULT_BATCH_SETTINGS, ...options.batch };
  const submission = new Submission(context, records, statusPollIntervalMs, {
    approval,
    limits,
    stepUpThresholdXaf: rules.stepUpThresholdXaf,
  });
  const recipients = new Recipients(context, {
    promptTtlMs: confirmationTtlSeconds * 1000,
    maxEntries: MAX_RECIPIENTS,
  });
  const scheduleSettings: ScheduleSettings = {
    timeZone: rules.timeZone,
    defaultTime: "09:00",
    catchUpMs: 24 * 3_600_000,
    retryMs: 6 * 3_600_000,
    reminderMs: 24 * 3_600_000,
    confirmationTtlMs: confirmationTtlSeconds * 1000,
    approvalThresholdXaf: rules.approvalThresholdXaf,
    approvalBands: rules.approvalBands,
    stepUpThresholdXaf: rules.stepUpThresholdXaf,
    approvalTtlMs: rules.approvalTtlMs,
    duplicateWindowMs: rules.duplicateWindowMs,
    ...options.schedules,
  };
  const scheduleRuns = new ScheduleRuns({
    context,
    submission,
    limits,
    settings: scheduleSettings,
    leave: batch.leave,
    onNoticeQueued,
  });
  const schedules = new Schedules(context, lookups, scheduleSettings, onNoticeQueued);
  const batchSchedules = new BatchSchedules(context, schedules, options.onBatchWork);
  const batches = new Batches(
    context,
    limits,
    {
      file: { maxRows: batch.maxRows, maxBytes: batch.maxBytes },
      previewTtlMs: batch.previewTtlMs,
      approvalThresholdXaf: rules.approvalThresholdXaf,
      approvalBands: rules.approvalBands,
      approvalTtlMs: rules.approvalTtlMs,
      stepUpThresholdXaf: rules.stepUpThresholdXaf,
      scheduling: batchSchedules,
    },
    onNoticeQueued,
  );
  return {
    lookups,
    recipients,
    schedules,
    scheduleRuns,
    batchSchedules,
    createScheduler: (scheduler = {}) =>
      new Scheduler({
        context,
        lookups,
        runs: scheduleRuns,
        batchRuns: batchSchedules,
        schedules,
        leases: options.stores.leases,
        settings: scheduleSettings,
        leave: batch.leave,
        onNoticeQueued,
        ...scheduler,
      }),
    preparation: new Preparation(context, lookups, confirmationTtlSeconds, {
      limits,
      duplicates,
    }),
    submission,
    approval,
    limits,
    settlement: new Settlement(context, (payout) => recipients.notePaid(payout)),
    resolution: new Resolution(context),
    batches,
    batchApproval: new BatchApproval(
      context,
      limits,
      onNoticeQueued,
      rules.stepUpThresholdXaf,
      batchSchedules,
    ),
    pins: new Pins({
      stores: options.stores,
      hasher: options.pinHasher ?? argon2Hasher,
      now: context.now,
      onNoticeQueued,
    }),
    staff: new StaffChanges(context, batches, confirmationTtlSeconds * 1000, onNoticeQueued),
    exports: new ExportRecords(context),
    sessions: new Sessions(context),
    staffNames: new StaffNames(context.stores.profiles),
    createBatchWorker: (worker = {}) =>
      new BatchWorker({
        context,
        lookups,
        submission,
        limits,
        leases: options.stores.leases,
        leave: batch.leave,
        previewTtlMs: batch.previewTtlMs,
        duplicateWindowMs: rules.duplicateWindowMs,
        stuckAfterMs: batch.stuckAfterMs,
        onNoticeQueued,
        ...worker,
      }),
  };
}
