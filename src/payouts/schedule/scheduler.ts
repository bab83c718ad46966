import type { Metrics } from "../../metrics/metrics.js";
import { SYSTEM_ACTOR } from "../../model/audit.js";
import type { Notice } from "../../model/notice.js";
import {
  type HoldReason,
  SCHEDULE_MOVES,
  type Schedule,
  type ScheduleRun,
} from "../../model/schedule.js";
import { cleanName } from "../../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
} from "../../payments/errors.js";
import type { LeaseStore } from "../../store/types.js";
import { namesMatch } from "../batch/checks.js";
import { takeBatchSlot } from "../batch/rows.js";
import type { Lookups } from "../lookups.js";
import { BackgroundRunner, IDLE_ROUND } from "../loops/runner.js";
import { PAYING_ROLES } from "../policy.js";
import type { StepContext } from "../types.js";
import { scheduleAudit } from "./audit.js";
import type { BatchSchedules } from "./batch-schedules.js";
import { InterruptedRuns, STUCK_SENDING_MS } from "./interrupted.js";
import { runRepeats } from "./repeats.js";
import { actorOf, type RunOutcome, type ScheduleRuns } from "./runs.js";
import type { ScheduleSettings, Schedules } from "./schedules.js";
import { nextRunAfter } from "./when.js";

export interface SchedulerOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  context: StepContext;
  lookups: Lookups;
  /** What happens to one run (shared with the owner's presses). */
  runs: ScheduleRuns;
  /** A scheduled batch's run: its batch made, for the batch worker to pay. */
  batchRuns: BatchSchedules;
  /** The schedule steps, for expiring approvals nobody gave in time. */
  schedules?: Schedules;
  leases: LeaseStore;
  settings: ScheduleSettings;
  /** Slots of each rate-limit window left to interactive /pay (the batch's share). */
  leave: number;
  /** Pause between rounds. Default 1 s. */
  tickMs?: number;
  /**
   * After a round that ran nothing, rest this long instead of `tickMs`, unless a run is due
   * within it (merchant runtimes; the lease then outlasts three rests). Default: no rest.
   */
  restMs?: number;
  /** Who holds the lease (default: random per process). */
  owner?: string;
  onNoticeQueued?: () => void;
}

/** How often a run waiting for its operator (or a failed look-up) is tried again. */
const RETRY_EVERY_MS = 60_000;
/** How often the runs coming up are read for their reminders. */
const REMIND_EVERY_MS = 15_000;
/** Schedules handled per round (the rest wait for the next one). */
const DUE_PER_ROUND = 50;

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #runner: BackgroundRunner;
  readonly #runs: ScheduleRuns;
  readonly #interrupted: InterruptedRuns;
  /** `{scheduleId}:{atMs}` of runs already reminded, until their time. */
  readonly #reminded = new Map<string, number>();
  #remindScanAtMs = 0;
  /** When the first schedule still awaiting approval lapses, as of the last sweep. */
  #approvalLapsesAtMs: number | null = null;
  /** Schedules whose run is retrying: not before this time (this replica's own pacing). */
  readonly #retryAt = new Map<string, number>();

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#runs = options.runs;
    this.#interrupted = new InterruptedRuns(options);
    const tickMs = options.tickMs ?? 1_000;
    const rest = options.restMs;
    // Taken only by a round: a scheduler resting until woken holds none and renews none.
    const leaseMs = Math.max(30_000, tickMs * 3, Number.isFinite(rest) ? (rest ?? 0) * 3 : 0);
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "schedule round",
      logger: options.context.log,
      tickMs,
      round: async () => {
        const handled = await this.round();
        return handled === 0 && rest ? IDLE_ROUND : handled;
      },
      ...(rest ? { idlePauseMs: () => this.#restingPauseMs(rest, tickMs) } : {}),
      lease: {
        store: options.leases,
        name: "scheduler",
        ttlMs: leaseMs,
        // Resting replicas ask for a lease held elsewhere once a rest (resting until woken:
        // once the holder's lease may have lapsed), not every tick.
        ...(rest ? { retryMs: Math.min(rest, leaseMs) } : {}),
        ...(options.owner ? { owner: options.owner } : {}),
      },
    });
  }

  /**
   * A whole rest (UNTIL_WOKEN: until a write wakes it), or until the next thing falls due:
   * a run, a reminder, an interrupted run's settling, a schedule's approval lapsing; never
   * under one tick.
   */
  async #restingPauseMs(restMs: number, tickMs: number): Promise<number> {
    const nowMs = this.#options.context.now();
    const dueAtMs = await this.#nextDueAtMs(nowMs);
    if (dueAtMs === null) return restMs;
    return Math.min(restMs, Math.max(tickMs, dueAtMs - nowMs));
  }

  /** When the next round has something to do (null: nothing known; a write will wake it). */
  async #nextDueAtMs(nowMs: number): Promise<number | null> {
    const { stores } = this.#options.context;
    const { reminderMs } = this.#options.settings;
    const far = Number.MAX_SAFE_INTEGER;
    const [[run], [later], [sending]] = await Promise.all([
      stores.schedules.upcoming(-1, far, 1),
      reminderMs > 0 ? stores.schedules.upcoming(nowMs + reminderMs, far, 1) : Promise.resolve([]),
      stores.schedules.sendingRuns(far, 1),
    ]);
    // What #nowAndThen handles waits for its next pass anyway.
    const sweepAtMs = this.#remindScanAtMs + REMIND_EVERY_MS;
    const times = [
      run?.atMs,
      later ? Math.max(sweepAtMs, later.atMs - reminderMs) : undefined,
      sending ? Math.max(sweepAtMs, sending.updatedAtMs + STUCK_SENDING_MS) : undefined,
      this.#approvalLapsesAtMs === null ? undefined : Math.max(sweepAtMs, this.#approvalLapsesAtMs),
    ].filter((atMs): atMs is number => atMs !== undefined);
    return times.length === 0 ? null : Math.min(...times);
  }

  start(): void {
    this.#runs.stopping(false);
    this.#runner.start();
  }

  stop(): Promise<void> {
    this.#runs.stopping(true);
    return this.#runner.stop();
  }

  wake(): void {
    this.#runner.wake();
  }

  /** One round: every due run handled, and the reminders of runs coming up. */
  async round(): Promise<number> {
    const { stores, now } = this.#options.context;
    let handled = 0;
    const nowMs = now();
    for (const id of await stores.schedules.due(nowMs, DUE_PER_ROUND)) {
      // A run waiting for its operator (or a look-up) is tried again once a minute, not
      // every round: it must not spend the API's rate limit.
      if ((this.#retryAt.get(id) ?? 0) > nowMs) continue;
      this.#retryAt.delete(id);
      const schedule = await stores.schedules.get(id);
      if (schedule?.state !== "active") continue;
      const outcome = await this.handle(schedule);
      if (outcome === "retrying") this.#retryAt.set(id, nowMs + RETRY_EVERY_MS);
      handled += 1;
    }
    await this.#nowAndThen();
    return handled;
  }

  /** Handles the schedule's next run if it is due, and moves on to the one after it. */
  async handle(schedule: Schedule): Promise<RunOutcome> {
    const { stores, now } = this.#options.context;
    const key = schedule.nextRunKey;
    const atMs = schedule.nextRunAtMs;
    if (key === undefined || atMs === undefined || atMs > now()) return "not_due";
    const recorded = await stores.schedules.run(schedule.id, key);
    if (recorded?.state === "sending" && schedule.batch) {
      // A batch run stopped between its record and its batch (a crash): made now, once.
      await this.#options.batchRuns.startRun(schedule, recorded, ["sending"]);
      await this.#advance(schedule);
      return "sent";
    }
    if (recorded && recorded.state !== "due") {
      // Handled before (this replica or one that died before moving on): only move on.
      await this.#advance(schedule);
      return "already";
    }
    const outcome = await this.#work(schedule, key, atMs, recorded);
    if (outcome !== "retrying" && outcome !== "paused") await this.#advance(schedule);
    if (outcome !== "sent") this.#options.onNoticeQueued?.();
    return outcome;
  }

  async #work(
    schedule: Schedule,
    key: string,
    atMs: number,
    recorded: ScheduleRun | null,
  ): Promise<RunOutcome> {
    const { stores, now } = this.#options.context;
    const { settings } = this.#options;
    const nowMs = now();
    const base: ScheduleRun = recorded ?? {
      scheduleId: schedule.id,
      key,
      atMs,
      state: "due",
      updatedAtMs: nowMs,
    };
    if (nowMs - atMs > settings.catchUpMs) {
      await this.#runs.record(
        schedule,
        { ...base, state: "missed" },
        ["none", "due"],
        "run_missed",
      );
      return "missed";
    }
    const role = await stores.staff.get(schedule.ownerId);
    if (role === null || !PAYING_ROLES.includes(role)) return this.#runs.pauseForOwner(schedule);
    // A scheduled batch's rows are checked (names, operators) by the batch worker, each row
    // on its own: a row whose name changed is not paid and is reported in the summary.
    if (schedule.batch) return this.#options.batchRuns.startRun(schedule, base, ["none", "due"]);
    const check = await this.#checkRecipient(schedule);
    if (check.outcome === "retry") {
      const since = base.retryingSinceMs ?? nowMs;
      if (nowMs - since < settings.retryMs) {
        if (base.retryingSinceMs === undefined) {
          const audit = scheduleAudit(schedule, "run_retrying", SYSTEM_ACTOR, nowMs, {
            runKey: key,
            reason: check.reason,
          });
          await stores.schedules.writeRun(
            { ...base, retryingSinceMs: since, updatedAtMs: nowMs },
            ["none", "due"],
            { audit },
          );
        }
        return "retrying";
      }
      return this.#runs.hold(schedule, base, ["none", "due"], check.reason);
    }
    if (check.outcome === "hold") {
      return this.#runs.hold(schedule, base, ["none", "due"], check.reason, check.currentName);
    }
    // A repeat of a payout in the window (not one of this schedule's own runs) waits for its
    // owner's Send anyway or Skip, as a batch's repeated row waits for its payer.
    const windowMs = settings.duplicateWindowMs ?? 0;
    const repeated = await runRepeats(this.#options.context, windowMs, schedule);
    if (repeated) {
      const repeats = { repeatsAtMs: repeated.createdAtMs, repeatsState: repeated.state };
      return this.#runs.hold(schedule, { ...base, ...repeats }, ["none", "due"], "duplicate");
    }
    return this.#runs.send(schedule, base, ["none", "due"], actorOf(schedule));
  }

  /** The registered name checked again, and the operator: go, hold, or try again later. */
  async #checkRecipient(
    schedule: Schedule,
  ): Promise<
    | { outcome: "go" }
    | { outcome: "retry"; reason: HoldReason }
    | { outcome: "hold"; reason: HoldReason; currentName?: string }
  > {
    const { lookups, context } = this.#options;
    try {
      const up = await lookups.isOperational(schedule.operator, "disbursement", {
        background: true,
      });
      if (!up) return { outcome: "retry", reason: "operator_unavailable" };
      // A slot waited for as a batch row's look-up is: our own limit is never a reason.
      const { leave } = this.#options;
      const waiting = this.#runs.keepAlive;
      const slotTaken = await takeBatchSlot(context.gateway, "getUserInfo", leave, waiting);
      const name = cleanName(await context.gateway.getUserInfo(schedule.phone, { slotTaken }));
      if (name === "") return { outcome: "hold", reason: "no_account" };
      if (!namesMatch(schedule.recipientName, name)) {
        return { outcome: "hold", reason: "name_changed", currentName: name };
      }
      return { outcome: "go" };
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        return { outcome: "hold", reason: "no_account" };
      }
      if (error instanceof LimiterUnavailableError) throw error;
      if (error instanceof PaymentClientError) return { outcome: "retry", reason: "lookup_failed" };
      throw error;
    }
  }

  /** Moves the schedule past the run it had next: to the one after, or finished. */
  async #advance(schedule: Schedule): Promise<void> {
    const { stores, now } = this.#options.context;
    const key = schedule.nextRunKey;
    if (key === undefined || schedule.nextRunAtMs === undefined) return;
    const next = nextRunAfter(
      schedule.recurrence,
      this.#options.settings.timeZone,
      schedule.nextRunAtMs,
    );
    const runCount = schedule.runCount + 1;
    if (!next) {
      const audit = scheduleAudit(schedule, "finish", SYSTEM_ACTOR, now());
      await stores.schedules.move(
        schedule.id,
        SCHEDULE_MOVES.finish.from,
        SCHEDULE_MOVES.finish.to,
        { runCount },
        { expectRunKey: key, unset: ["nextRunAtMs", "nextRunKey"], audit },
      );
      return;
    }
    const patch = { runCount, nextRunAtMs: next.atMs, nextRunKey: next.key };
    const moved = await stores.schedules.move(schedule.id, ["active"], "active", patch, {
      expectRunKey: key,
    });
    // Paused meanwhile: it still moves on (Resume starts from now anyway).
    if (!moved.ok && moved.schedule?.state === "paused") {
      await stores.schedules.move(schedule.id, ["paused"], "paused", patch, { expectRunKey: key });
    }
  }

  /** Reminders of runs coming up within SCHEDULE_REMINDER_HOURS, once each. */
  /**
   * Every REMIND_EVERY_MS rather than every round (a few seconds late is as good, and the
   * round stays one read of the due index): the reminders, approvals that expired, and runs
   * interrupted while sending.
   */
  async #nowAndThen(): Promise<void> {
    const nowMs = this.#options.context.now();
    if (nowMs - this.#remindScanAtMs < REMIND_EVERY_MS) return;
    this.#remindScanAtMs = nowMs;
    const approvals = await this.#options.schedules?.expireApprovals();
    this.#approvalLapsesAtMs = approvals?.nextAtMs ?? null;
    await this.#interrupted.sweep(nowMs);
    await this.#remind(nowMs);
  }

  async #remind(nowMs: number): Promise<void> {
    const { settings } = this.#options;
    if (settings.reminderMs <= 0) return;
    const { stores } = this.#options.context;
    // Runs this replica reminded (or found reminded) stay out of the next rounds' reads.
    for (const [id, atMs] of this.#reminded) if (atMs <= nowMs) this.#reminded.delete(id);
    const upcoming = await stores.schedules.upcoming(nowMs, nowMs + settings.reminderMs, 500);
    for (const { id, atMs } of upcoming) {
      if (this.#reminded.has(`${id}:${atMs}`)) continue;
      this.#reminded.set(`${id}:${atMs}`, atMs);
      const schedule = await stores.schedules.get(id);
      const key = schedule?.nextRunKey;
      if (schedule?.state !== "active" || key === undefined || schedule.nextRunAtMs !== atMs) {
        continue;
      }
      // Made less than the lead before its run: the prompt showed it, no reminder.
      if (atMs - schedule.updatedAtMs < settings.reminderMs) continue;
      const run: ScheduleRun = {
        scheduleId: schedule.id,
        key,
        atMs,
        state: "due",
        remindedAtMs: nowMs,
        updatedAtMs: nowMs,
      };
      const notices: Notice[] = [
        { kind: "schedule", what: "run_reminder", scheduleId: schedule.id, runKey: key },
      ];
      const written = await stores.schedules.writeRun(run, ["none"], { notices });
      if (written.ok) this.#options.onNoticeQueued?.();
    }
  }
}
