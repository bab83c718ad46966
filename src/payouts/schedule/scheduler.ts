/**
 * The scheduler: on the one background runner, under a lease (one replica works while the
 * others stand by), it handles each active schedule whose next run is due, then moves the
 * schedule to the run after it (compare-and-set on the run it handled, so two replicas, or
 * a replica and its successor after a failover, never skip or repeat one).
 *
 * A run is sent exactly once because of where its payout comes from, not because of the
 * lease: its payout's id is `{scheduleId}-{runKey}`, created once (a second create finds it),
 * and claimed with the same atomic move as a Confirm (`awaiting_confirmation → submitting`),
 * which only one caller can make. A claim made and never sent (a crash) becomes `unknown`
 * by the stranded rule, like any payout: never retried.
 *
 * Before each run it checks again: its owner may still pay (else the schedule is paused and
 * the admins told); the operator takes payouts (else tried again until SCHEDULE_RETRY_HOURS,
 * then held); the number still has the registered name the schedule was made with (else
 * held, and its owner asked: Send anyway / Skip); the daily caps (checked by the claim: over,
 * held and the owner told). A run whose time passed more than SCHEDULE_CATCH_UP_HOURS ago
 * (no replica was running) is recorded missed and its owner told: never sent late.
 * SCHEDULE_REMINDER_HOURS before a run, its owner is reminded, with Skip this run.
 */
import { randomBytes } from "node:crypto";
import { type Actor, SYSTEM_ACTOR } from "../../model/audit.js";
import { type Notice, noticeKey, type ScheduleNoticeKind } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import {
  type HoldReason,
  type RunState,
  runPayoutId,
  type Schedule,
  type ScheduleRun,
} from "../../model/schedule.js";
import { cleanName } from "../../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
} from "../../payments/errors.js";
import { PayoutExistsError } from "../../store/payout-codec.js";
import type { LeaseStore } from "../../store/types.js";
import { namesMatch } from "../batch-checks.js";
import type { Limits } from "../limits.js";
import type { Lookups } from "../lookups.js";
import { type Asker, may, PAYING_ROLES } from "../policy.js";
import { BackgroundRunner } from "../runner.js";
import { retryPayoutWrite } from "../store-retry.js";
import type { Submission } from "../submission.js";
import type { StepContext } from "../types.js";
import { type ScheduleSettings, scheduleAudit } from "./schedules.js";
import { nextRunAfter } from "./when.js";

export interface SchedulerOptions {
  context: StepContext;
  lookups: Lookups;
  submission: Submission;
  limits: Limits;
  leases: LeaseStore;
  settings: ScheduleSettings;
  /** Pause between rounds. Default 1 s. */
  tickMs?: number;
  /** Who holds the lease (default: random per process). */
  owner?: string;
  onNoticeQueued?: () => void;
}

/** Schedules handled per round (the rest wait for the next one). */
const DUE_PER_ROUND = 50;
/** A run payout not claimed (the scheduler died first) stays claimable this long. */
const RUN_CLAIMABLE_MS = 3_600_000;

/** What handling one run came to. */
export type RunOutcome =
  | "sent"
  | "held"
  | "missed"
  | "skipped"
  | "retrying"
  | "paused"
  | "not_due"
  | "already";

/** What a press on a run's button came to. */
export type RunPress =
  | { outcome: "sent" }
  | { outcome: "skipped" }
  | { outcome: "not_sent"; why: RunOutcome }
  | { outcome: "too_late" }
  | { outcome: "already" }
  | { outcome: "forbidden" }
  | { outcome: "not_allowed" }
  | { outcome: "not_found" };

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #runner: BackgroundRunner;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    const tickMs = options.tickMs ?? 1_000;
    this.#runner = new BackgroundRunner({
      name: "schedule round",
      logger: options.context.log,
      tickMs,
      round: () => this.round(),
      lease: {
        store: options.leases,
        name: "scheduler",
        ttlMs: Math.max(30_000, tickMs * 3),
        ...(options.owner ? { owner: options.owner } : {}),
      },
    });
  }

  start(): void {
    this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  wake(): void {
    this.#runner.wake();
  }

  /** One round: every due run handled, and the reminders of runs coming up. */
  async round(): Promise<number> {
    const { stores, now } = this.#options.context;
    let handled = 0;
    for (const id of await stores.schedules.due(now(), DUE_PER_ROUND)) {
      const schedule = await stores.schedules.get(id);
      if (schedule?.state !== "active") continue;
      await this.handle(schedule);
      handled += 1;
    }
    await this.#remind();
    return handled;
  }

  /** Handles the schedule's next run if it is due, and moves on to the one after it. */
  async handle(schedule: Schedule): Promise<RunOutcome> {
    const { stores, now } = this.#options.context;
    const key = schedule.nextRunKey;
    const atMs = schedule.nextRunAtMs;
    if (key === undefined || atMs === undefined || atMs > now()) return "not_due";
    const recorded = await stores.schedules.run(schedule.id, key);
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
      await this.#record(schedule, { ...base, state: "missed" }, ["none", "due"], "run_missed");
      return "missed";
    }
    const role = await stores.staff.get(schedule.ownerId);
    if (role === null || !PAYING_ROLES.includes(role)) return this.pauseForOwner(schedule);
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
      return this.#hold(schedule, base, ["none", "due"], check.reason);
    }
    if (check.outcome === "hold") {
      return this.#hold(schedule, base, ["none", "due"], check.reason, check.currentName);
    }
    return this.send(schedule, base, ["none", "due"], actorOf(schedule));
  }

  /**
   * Sends a run: its payout created (or found: created before a crash) and claimed like a
   * Confirm, the run recorded sent, then the one request through the submission. Also
   * used by Send anyway on a held run (`from: ["held"]`, the owner as actor).
   */
  async send(
    schedule: Schedule,
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    actor: Actor,
    recipientName = schedule.recipientName,
  ): Promise<RunOutcome> {
    const { context, limits, submission } = this.#options;
    const { stores, log, now } = context;
    const payout = await this.#runPayout(schedule, run, recipientName);
    if (payout.state !== "awaiting_confirmation") {
      // Claimed before: it may have been sent. Never again; only record it.
      await this.#record(schedule, { ...run, state: "sent", payoutId: payout.id }, from, null);
      return "already";
    }
    const claimId = randomBytes(8).toString("hex");
    const options = {
      claimId,
      actor,
      // The owner's role now, in the claim's own step: removed or demoted since, refused.
      expect: { initiatorId: schedule.ownerId, initiatorRoles: PAYING_ROLES },
      reserve: limits.reservation("disbursement"),
      stampSentAtMs: false,
      durable: true,
    };
    const claim = await retryPayoutWrite(log, payout.id, "claim", () =>
      stores.payouts.transition(payout.id, "confirm", { submittedAtMs: now() }, options),
    );
    if (!claim.ok) {
      if (claim.reason === "over_limit" || claim.reason === "initiator_not_allowed") {
        await stores.payouts.transition(payout.id, "cancel", {}, { actor: SYSTEM_ACTOR });
        if (claim.reason === "initiator_not_allowed") return this.pauseForOwner(schedule);
        return this.#hold(schedule, run, from, "over_limit");
      }
      // Someone else claimed it first (another replica): theirs to send.
      await this.#record(schedule, { ...run, state: "sent", payoutId: payout.id }, from, null);
      return "already";
    }
    const sent = { ...run, state: "sent" as const, payoutId: payout.id, updatedAtMs: now() };
    await this.#record(schedule, sent, from, "run_sent", actor);
    const result = await submission.submit({ payout: claim.payout, claimId, actor });
    log.info(
      { scheduleId: schedule.id, runKey: run.key, payoutId: payout.id, outcome: result.outcome },
      "scheduled run sent",
    );
    if (result.outcome !== "pending") {
      await this.#notify(schedule, run.key, "run_not_sent");
    }
    return "sent";
  }

  /** The owner may no longer pay: the schedule is paused, the owner and the admins told. */
  async pauseForOwner(schedule: Schedule): Promise<RunOutcome> {
    const { stores, now } = this.#options.context;
    const notices: Notice[] = [
      { kind: "schedule", what: "paused", scheduleId: schedule.id, runKey: "-" },
    ];
    const audit = scheduleAudit(schedule, "pause", SYSTEM_ACTOR, now(), {
      reason: "owner_not_allowed",
    });
    await stores.schedules.move(
      schedule.id,
      ["active"],
      "paused",
      { pausedBecause: "owner_not_allowed", changedBy: 0 },
      { notices, audit },
    );
    this.#options.onNoticeQueued?.();
    return "paused";
  }

  /**
   * Send anyway, on a held run: its owner only, while they may pay, within
   * SCHEDULE_CATCH_UP_HOURS of the run's time (later, it is missed: never sent). A run held
   * for a changed name is paid to the name registered now, which the schedule keeps.
   */
  async sendAnyway(scheduleId: string, key: string, asker: Asker): Promise<RunPress> {
    const found = await this.#pressed(scheduleId, key, asker, true);
    if ("outcome" in found) return found;
    const { schedule, run } = found;
    const { stores, now } = this.#options.context;
    if (run.state !== "held") return { outcome: "already" };
    if (now() - run.atMs > this.#options.settings.catchUpMs) {
      await this.#record(schedule, { ...run, state: "missed" }, ["held"], "run_missed");
      this.#options.onNoticeQueued?.();
      return { outcome: "too_late" };
    }
    const name = run.currentName ?? schedule.recipientName;
    const actor: Actor = { id: asker?.userId ?? 0, role: asker?.role ?? "payer" };
    const decided = { ...run, decidedBy: actor.id };
    const outcome = await this.send(schedule, decided, ["held"], actor, name);
    if (outcome === "sent" && name !== schedule.recipientName) {
      await stores.schedules.move(schedule.id, [schedule.state], schedule.state, {
        recipientName: name,
      });
    }
    return outcome === "sent" ? { outcome: "sent" } : { outcome: "not_sent", why: outcome };
  }

  /** Skip (a held run) or Skip this run (from its reminder): its owner only. */
  async skipRun(scheduleId: string, key: string, asker: Asker): Promise<RunPress> {
    const found = await this.#pressed(scheduleId, key, asker, false);
    if ("outcome" in found) return found;
    const actor: Actor = { id: asker?.userId ?? 0, role: asker?.role ?? "viewer" };
    return (await this.skip(found.schedule, found.run, actor))
      ? { outcome: "skipped" }
      : { outcome: "already" };
  }

  async #pressed(
    scheduleId: string,
    key: string,
    asker: Asker,
    pays: boolean,
  ): Promise<{ schedule: Schedule; run: ScheduleRun } | RunPress> {
    const { stores } = this.#options.context;
    const schedule = await stores.schedules.get(scheduleId);
    if (!schedule) return { outcome: "not_found" };
    if (asker === null || asker.userId !== schedule.ownerId) return { outcome: "forbidden" };
    if (pays && !may(asker, "pay")) return { outcome: "not_allowed" };
    const run = await stores.schedules.run(scheduleId, key);
    if (!run) {
      // A reminder's run not recorded yet (it always is, by the reminder): nothing to press.
      return { outcome: "not_found" };
    }
    return { schedule, run };
  }

  /** Skip: a held run (or one not yet due, from its reminder) is never sent. */
  async skip(schedule: Schedule, run: ScheduleRun, actor: Actor): Promise<boolean> {
    const { stores, now } = this.#options.context;
    const audit = scheduleAudit(schedule, "run_skipped", actor, now(), { runKey: run.key });
    const written = await stores.schedules.writeRun(
      { ...run, state: "skipped", decidedBy: actor.id, updatedAtMs: now() },
      ["none", "due", "held"],
      { audit },
    );
    return written.ok;
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
      const name = cleanName(await context.gateway.getUserInfo(schedule.phone));
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

  async #hold(
    schedule: Schedule,
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    reason: HoldReason,
    currentName?: string,
  ): Promise<RunOutcome> {
    const held: ScheduleRun = {
      ...run,
      state: "held",
      heldBecause: reason,
      ...(currentName === undefined ? {} : { currentName }),
    };
    await this.#record(schedule, held, from, "run_held");
    return "held";
  }

  /**
   * Writes the run (compare-and-set on its recorded state), audited as `step` with the
   * notice that goes with it, in one step; `step` null: recorded without either.
   */
  async #record(
    schedule: Schedule,
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    step: "run_sent" | "run_held" | "run_missed" | null,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<void> {
    const { stores, now } = this.#options.context;
    const nowMs = now();
    const notice: Record<string, ScheduleNoticeKind> = {
      run_held: "run_held",
      run_missed: "run_missed",
    };
    const what = step === null ? undefined : notice[step];
    const details = {
      runKey: run.key,
      ...(run.payoutId ? { payoutId: run.payoutId } : {}),
      ...(run.heldBecause ? { reason: run.heldBecause } : {}),
    };
    await stores.schedules.writeRun({ ...run, updatedAtMs: nowMs }, from, {
      ...(what
        ? { notices: [{ kind: "schedule", what, scheduleId: schedule.id, runKey: run.key }] }
        : {}),
      ...(step ? { audit: scheduleAudit(schedule, step, actor, nowMs, details) } : {}),
    });
  }

  async #notify(schedule: Schedule, runKey: string, what: ScheduleNoticeKind): Promise<void> {
    const { stores, now } = this.#options.context;
    const notice: Notice = { kind: "schedule", what, scheduleId: schedule.id, runKey };
    await stores.outbox.schedule(noticeKey(notice), now());
    this.#options.onNoticeQueued?.();
  }

  /** The run's payout: a new one, or the one stored before (after a restart). */
  async #runPayout(schedule: Schedule, run: ScheduleRun, recipientName: string): Promise<Payout> {
    const { stores, now } = this.#options.context;
    const nowMs = now();
    const payout: Payout = {
      id: runPayoutId(schedule.id, run.key),
      kind: "disbursement",
      state: "awaiting_confirmation",
      phone: schedule.phone,
      operator: schedule.operator,
      recipientName,
      amount: schedule.amount,
      ...(schedule.note ? { note: schedule.note } : {}),
      initiatorId: schedule.ownerId,
      chatId: schedule.chatId,
      locale: schedule.locale,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      expiresAtMs: nowMs + RUN_CLAIMABLE_MS,
      scheduleId: schedule.id,
    };
    try {
      await stores.payouts.create(payout, { actor: actorOf(schedule) });
      return payout;
    } catch (error) {
      if (!(error instanceof PayoutExistsError)) throw error;
      return (await stores.payouts.get(payout.id)) ?? payout;
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
        ["active"],
        "finished",
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
  async #remind(): Promise<void> {
    const { settings } = this.#options;
    if (settings.reminderMs <= 0) return;
    const { stores, now } = this.#options.context;
    const nowMs = now();
    for (const id of await stores.schedules.due(nowMs + settings.reminderMs, DUE_PER_ROUND)) {
      const schedule = await stores.schedules.get(id);
      const key = schedule?.nextRunKey;
      const atMs = schedule?.nextRunAtMs;
      if (schedule?.state !== "active" || key === undefined || atMs === undefined) {
        continue;
      }
      // Made less than the lead before its run: the prompt showed it, no reminder.
      if (atMs <= nowMs || atMs - schedule.updatedAtMs < settings.reminderMs) continue;
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

/** The schedule's owner, as the actor of the runs the bot sends for them. */
function actorOf(schedule: Schedule): Actor {
  return { id: schedule.ownerId, role: schedule.ownerRole };
}
