/**
 * The steps of a schedule that people take: `/schedule` checked and stored as a prompt
 * (the registered name looked up, the first runs worked out), Confirm (or a request for
 * approval at or over the threshold), Cancel, Approve / Reject, Pause / Resume / Delete,
 * and a held run's Send anyway / Skip (and Skip this run from a reminder). Every step is
 * one compare-and-set in the store, audited in the same step. The runs themselves are the
 * scheduler's (scheduler.ts); a run sent by Send anyway goes through the same path.
 */
import type { SignersExpected } from "../../model/approval-rules.js";
import { type Actor, staffActor } from "../../model/audit.js";
import { parseAmount } from "../../model/money.js";
import type { Notice } from "../../model/notice.js";
import { parsePhone } from "../../model/phone.js";
import type { Role } from "../../model/roles.js";
import {
  type Recurrence,
  SCHEDULE_MOVES,
  type Schedule,
  type ScheduleRun,
  type ScheduleState,
} from "../../model/schedule.js";
import { cleanName, cleanNote } from "../../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
} from "../../payments/errors.js";
import { randomId } from "../ids.js";
import type { Lookups } from "../lookups.js";
import { approvalNeedsPin, type PinProof } from "../pin.js";
import { type Asker, may, needsApproval } from "../policy.js";
import type { PrepareFailure, StepContext } from "../types.js";
import { scheduleAudit } from "./audit.js";
import { scheduleRepeats } from "./repeats.js";
import type { ScheduleSettings } from "./settings.js";
import { approvalRequestPatch, signersOf, signSchedule } from "./signing.js";
import type {
  SchedulePrepareInput,
  SchedulePrepareResult,
  ScheduleStepResult,
} from "./step-results.js";
import { type RunTime, runsAfter } from "./when.js";

export type { SchedulePrepareInput, SchedulePrepareResult, ScheduleSettings, ScheduleStepResult };

/** What /schedules lists: the schedules that were made (not prompts left unconfirmed). */
const LISTED_STATES: readonly ScheduleState[] = [
  "awaiting_approval",
  "active",
  "paused",
  "finished",
];

/** How many runs a prompt and a list show. */
export const RUNS_SHOWN = 3;

/** A schedule's id: 10 characters, short enough to read in a list. */
export function newScheduleId(): string {
  return randomId(8).slice(0, 10);
}

export class Schedules {
  readonly #context: StepContext;
  readonly #lookups: Lookups;
  readonly #settings: ScheduleSettings;
  readonly #onNoticeQueued: () => void;

  constructor(
    context: StepContext,
    lookups: Lookups,
    settings: ScheduleSettings,
    onNoticeQueued: () => void,
  ) {
    this.#context = context;
    this.#lookups = lookups;
    this.#settings = settings;
    this.#onNoticeQueued = onNoticeQueued;
  }

  get settings(): ScheduleSettings {
    return this.#settings;
  }

  /** True when `asker` acting on `schedule` needs a PIN and `pin` is not their fresh proof. */
  #needsPin(schedule: Schedule, asker: { userId: number }, pin: PinProof | undefined): boolean {
    const threshold = this.#settings.stepUpThresholdXaf;
    return approvalNeedsPin(threshold, schedule, asker, pin, this.#context.now());
  }

  /** The next `count` runs of `schedule` after now (or after `afterMs`). */
  nextRuns(recurrence: Recurrence, count = RUNS_SHOWN, afterMs?: number): RunTime[] {
    const from = afterMs ?? this.#context.now();
    return runsAfter(recurrence, this.#settings.timeZone, from, count);
  }

  /**
   * Checks a /schedule request like /pay's (number, amount, the operator, the registered
   * name) and stores it awaiting its owner's Confirm. Nothing is stored on any failure.
   */
  async prepare(input: SchedulePrepareInput): Promise<SchedulePrepareResult> {
    const phone = parsePhone(input.phone);
    if (!phone.ok) {
      return {
        outcome: "refused",
        reason: "bad_phone",
        problem: phone.problem,
        operator: phone.operator,
      };
    }
    const amount = parseAmount(input.amount);
    if (!amount.ok) return { outcome: "refused", reason: "bad_amount", problem: amount.problem };
    const runs = this.nextRuns(input.recurrence);
    if (runs.length === 0) return { outcome: "refused", reason: "no_runs" };
    const name = await this.#registeredName(phone.phone, phone.operator);
    if (typeof name !== "string") return { outcome: "refused", ...name };
    const { stores, now } = this.#context;
    const nowMs = now();
    const note = cleanNote(input.note);
    const schedule: Schedule = {
      id: newScheduleId(),
      state: "awaiting_confirmation",
      recurrence: input.recurrence,
      phone: phone.phone,
      operator: phone.operator,
      recipientName: name,
      amount: amount.amount,
      ...(note ? { note } : {}),
      ownerId: input.ownerId,
      ownerRole: input.ownerRole,
      chatId: input.chatId,
      locale: input.locale,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      expiresAtMs: nowMs + this.#settings.confirmationTtlMs,
      runCount: 0,
    };
    const actor = staffActor({ userId: input.ownerId, role: input.ownerRole });
    const query = { phone: schedule.phone, amount: schedule.amount, id: schedule.id };
    const [repeats] = await Promise.all([
      scheduleRepeats(this.#context, this.#settings.duplicateWindowMs ?? 0, query),
      stores.schedules.create(schedule, scheduleAudit(schedule, "prompt", actor, nowMs)),
    ]);
    return { outcome: "prepared", schedule, runs, ...(repeats ? { repeats } : {}) };
  }

  /** Remembers which message shows the prompt. */
  async attachMessage(id: string, messageId: number): Promise<void> {
    const schedule = await this.#context.stores.schedules.get(id);
    if (!schedule) return;
    await this.#context.stores.schedules.move(id, [schedule.state], schedule.state, { messageId });
  }

  /**
   * Confirm: its owner only, while they may pay and the prompt has not expired. Under the
   * threshold it becomes active with its first run after now; at or over it, it waits for
   * an approver (once, for every run). At or over STEP_UP_THRESHOLD_XAF it takes the
   * owner's fresh `pin` proof (the Mini App's); a chat press, forged or not, moves nothing.
   */
  async confirm(id: string, asker: Asker, pin?: PinProof): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    const schedule = await stores.schedules.get(id);
    if (!schedule) return { outcome: "not_found" };
    if (asker === null || asker.userId !== schedule.ownerId || !may(asker, "pay")) {
      return { outcome: "forbidden", schedule };
    }
    if (schedule.state !== "awaiting_confirmation") return { outcome: "already", schedule };
    // Asked at the press: the threshold may have been set (or lowered) since the prompt.
    if (this.#needsPin(schedule, asker, pin)) return { outcome: "step_up_required", schedule };
    const nowMs = now();
    if (nowMs > schedule.expiresAtMs) return this.#expire(schedule);
    const actor = staffActor(asker);
    if (needsApproval(schedule.amount, this.#settings.approvalThresholdXaf)) {
      const notices: Notice[] = [this.#notice(schedule, "approval_requested")];
      const moved = await stores.schedules.move(
        id,
        SCHEDULE_MOVES.request_approval.from,
        SCHEDULE_MOVES.request_approval.to,
        { ownerRole: asker.role, ...approvalRequestPatch(this.#settings, schedule.amount, nowMs) },
        { notices, audit: scheduleAudit(schedule, "request_approval", actor, nowMs) },
      );
      if (!moved.ok) return lost(moved.schedule);
      this.#onNoticeQueued();
      return { outcome: "approval_requested", schedule: moved.schedule };
    }
    return this.#activate(schedule, "confirm", actor);
  }

  /** Cancel on the prompt: its owner only, while it awaits confirmation. */
  async cancel(id: string, asker: Asker): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    const schedule = await stores.schedules.get(id);
    if (!schedule) return { outcome: "not_found" };
    if (asker === null || asker.userId !== schedule.ownerId)
      return { outcome: "forbidden", schedule };
    const audit = scheduleAudit(schedule, "cancel", staffActor(asker), now());
    const moved = await stores.schedules.move(
      id,
      SCHEDULE_MOVES.cancel.from,
      SCHEDULE_MOVES.cancel.to,
      {},
      { audit },
    );
    return moved.ok ? { outcome: "done", schedule: moved.schedule } : lost(moved.schedule);
  }

  /**
   * Approve or Reject a schedule waiting for a second person: someone whose role may approve
   * now, never its owner. An approval past APPROVAL_TTL_HOURS expires it instead. Approving
   * one at or over STEP_UP_THRESHOLD_XAF takes the approver's fresh `pin` proof (Reject
   * never does: it moves no money).
   */
  async decide(
    id: string,
    asker: Asker,
    approve: boolean,
    pin?: PinProof,
  ): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    const schedule = await stores.schedules.get(id);
    if (!schedule) return { outcome: "not_found" };
    if (asker === null || !may(asker, "approve") || asker.userId === schedule.ownerId) {
      return { outcome: "forbidden", schedule };
    }
    if (schedule.state !== "awaiting_approval") return { outcome: "already", schedule };
    // A Resume waiting for approval: whoever pressed it is not the second person.
    if (schedule.resuming && asker.userId === schedule.changedBy) {
      return { outcome: "forbidden", schedule };
    }
    // The same four-eyes rule as a payout's or a batch's: an approver made after the request
    // (perhaps by its own owner, an admin) cannot decide on it.
    const approver = (await stores.staff.list()).find((member) => member.userId === asker.userId);
    if ((approver?.grantedAtMs ?? 0) > schedule.createdAtMs)
      return { outcome: "too_new", schedule };
    if (approve && this.#needsPin(schedule, asker, pin)) {
      return { outcome: "step_up_required", schedule };
    }
    if (now() > schedule.expiresAtMs) return this.#expire(schedule);
    const actor = staffActor(asker);
    const notices: Notice[] = [this.#notice(schedule, "approval_decided")];
    if (!approve && schedule.resuming) return this.#refuseResume(schedule, "reject", actor);
    if (approve) {
      const signed = await signSchedule(this.#context, schedule, asker, this.#onNoticeQueued);
      if (signed.outcome !== "last") return signed;
      const { signatures } = signed;
      // Counted on the request as read: a Resume rejected and asked again since is another
      // request, whose signatures these are not.
      const patch = { approvedBy: asker.userId, signatures };
      const request = {
        expiresAtMs: schedule.expiresAtMs,
        signers: signersOf(schedule, signatures),
      };
      return this.#activate(schedule, "approve", actor, patch, request);
    }
    const audit = scheduleAudit(schedule, "reject", actor, now());
    const moved = await stores.schedules.move(
      id,
      SCHEDULE_MOVES.reject.from,
      SCHEDULE_MOVES.reject.to,
      { changedBy: asker.userId },
      { audit, notices },
    );
    if (!moved.ok) return lost(moved.schedule);
    this.#onNoticeQueued();
    return { outcome: "done", schedule: moved.schedule };
  }

  /**
   * Pause, Resume or Delete: the owner or an admin. Resume starts again from the first run
   * after now (runs whose time passed while paused are not sent). Deleting touches no run
   * already sent: their payouts go on as any payout.
   */
  async change(
    id: string,
    asker: Asker,
    step: "pause" | "resume" | "delete",
  ): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    const schedule = await stores.schedules.get(id);
    if (!schedule) return { outcome: "not_found" };
    if (!mayChange(asker, schedule) || asker === null) return { outcome: "forbidden", schedule };
    const actor = staffActor(asker);
    if (step === "resume") return this.#resume(schedule, asker);
    const { from, to } = SCHEDULE_MOVES[step];
    // An admin's or an approver's pause stops money until one of them lifts it.
    const byStaff = step === "pause" && STAFF_PAUSERS.includes(asker.role);
    const audit = scheduleAudit(schedule, step, actor, now(), byStaff ? { byStaff: true } : {});
    const moved = await stores.schedules.move(
      id,
      from,
      to,
      { changedBy: asker.userId, ...(byStaff ? { pausedBecause: "staff" as const } : {}) },
      { audit, unset: byStaff ? [] : ["pausedBecause"] },
    );
    return moved.ok ? { outcome: "done", schedule: moved.schedule } : lost(moved.schedule);
  }

  /**
   * Resume: a pause by an admin or an approver is lifted only by one of them; at or over
   * APPROVAL_THRESHOLD_XAF or STEP_UP_THRESHOLD_XAF it is a decision to pay again, so a
   * second person approves it (with their PIN at or over the PIN threshold), as they
   * approved the schedule: a refusal or no decision in time leaves it paused.
   */
  async #resume(schedule: Schedule, asker: NonNullable<Asker>): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    if (schedule.state !== "paused") return { outcome: "already", schedule };
    if (schedule.pausedBecause === "staff" && !STAFF_PAUSERS.includes(asker.role)) {
      return { outcome: "paused_by_staff", schedule };
    }
    const actor = staffActor(asker);
    const { amount } = schedule;
    const { approvalThresholdXaf: approval, stepUpThresholdXaf: pin } = this.#settings;
    if (!needsApproval(amount, approval) && !needsApproval(amount, pin)) {
      return this.#activate(schedule, "resume", actor, { changedBy: asker.userId });
    }
    if (this.nextRuns(schedule.recurrence, 1).length === 0) return { outcome: "no_runs", schedule };
    const nowMs = now();
    const patch = { resuming: true, changedBy: asker.userId };
    const { from, to } = SCHEDULE_MOVES.request_resume;
    const moved = await stores.schedules.move(
      schedule.id,
      from,
      to,
      { ...patch, ...approvalRequestPatch(this.#settings, schedule.amount, nowMs) },
      {
        notices: [this.#notice(schedule, "approval_requested")],
        audit: scheduleAudit(schedule, "request_approval", actor, nowMs, { resume: true }),
        unset: ["signatures"],
      },
    );
    if (!moved.ok) return lost(moved.schedule);
    this.#onNoticeQueued();
    return { outcome: "approval_requested", schedule: moved.schedule };
  }

  /** A Resume rejected or not approved in time: paused again, as it was; its owner told. */
  async #refuseResume(schedule: Schedule, step: "reject" | "expire", actor: Actor) {
    const { stores, now } = this.#context;
    const { from, to } = SCHEDULE_MOVES.refuse_resume;
    const moved = await stores.schedules.move(
      schedule.id,
      from,
      to,
      { changedBy: actor.id },
      {
        notices: [this.#notice(schedule, "resume_refused")],
        audit: scheduleAudit(schedule, step, actor, now(), { resume: true }),
        unset: ["resuming"],
      },
    );
    if (!moved.ok) return lost(moved.schedule);
    this.#onNoticeQueued();
    return { outcome: "done" as const, schedule: moved.schedule };
  }

  /**
   * The schedules `asker` may see (everyone's for those who see everyone's, else their own)
   * that were made: active, paused, finished, or waiting for approval.
   */
  async list(asker: NonNullable<Asker>, limit = 20): Promise<Schedule[]> {
    const all = await this.#context.stores.schedules.list(200);
    const listed = all.filter((schedule) => LISTED_STATES.includes(schedule.state));
    const visible = may(asker, "see_everyone")
      ? listed
      : listed.filter((schedule) => schedule.ownerId === asker.userId);
    return visible.slice(0, limit);
  }

  /**
   * Expires the schedules nobody approved within APPROVAL_TTL_HOURS (their owner is told);
   * answers how many, and when the first one still waiting lapses (null: none). Now and then.
   */
  async expireApprovals(): Promise<{ expired: number; nextAtMs: number | null }> {
    const { stores, now } = this.#context;
    const nowMs = now();
    let expired = 0;
    let nextAtMs: number | null = null;
    for (const schedule of await stores.schedules.list(500)) {
      const lapses = schedule.state === "awaiting_approval" ? schedule.expiresAtMs : -1;
      if (lapses >= nowMs) nextAtMs = Math.min(nextAtMs ?? lapses, lapses);
      if (schedule.state !== "awaiting_approval" || schedule.expiresAtMs >= nowMs) continue;
      if (schedule.resuming) {
        const refused = await this.#refuseResume(schedule, "expire", SYSTEM);
        if (refused.outcome === "done") expired += 1;
        continue;
      }
      const audit = scheduleAudit(schedule, "expire", { id: 0, role: "system" }, nowMs);
      const notices: Notice[] = [this.#notice(schedule, "approval_decided")];
      const moved = await stores.schedules.move(
        schedule.id,
        ["awaiting_approval"],
        SCHEDULE_MOVES.expire.to,
        {},
        { audit, notices },
      );
      if (moved.ok) expired += 1;
    }
    if (expired > 0) this.#onNoticeQueued();
    return { expired, nextAtMs };
  }

  /** A run, for the buttons of its message. */
  run(scheduleId: string, key: string): Promise<ScheduleRun | null> {
    return this.#context.stores.schedules.run(scheduleId, key);
  }

  /**
   * Moves the schedule to active with its next run after now; none left: nothing to run.
   * `request`: only while its request for approval is still the one read (its expiresAtMs)
   * and every signer counted still stands.
   */
  async #activate(
    schedule: Schedule,
    step: "confirm" | "approve" | "resume",
    actor: Actor,
    patch: Partial<Schedule> = {},
    request?: { expiresAtMs: number; signers: SignersExpected },
  ): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    const nowMs = now();
    const [next] = this.nextRuns(schedule.recurrence, 1, nowMs);
    if (!next) return { outcome: "no_runs", schedule };
    const notices: Notice[] =
      step === "approve" ? [this.#notice(schedule, "approval_decided")] : [];
    const moved = await stores.schedules.move(
      schedule.id,
      SCHEDULE_MOVES[step].from,
      SCHEDULE_MOVES[step].to,
      { ...patch, nextRunAtMs: next.atMs, nextRunKey: next.key },
      {
        audit: scheduleAudit(schedule, step, actor, nowMs, { nextRun: next.key }),
        notices,
        unset: ["pausedBecause", "resuming"],
        ...(request === undefined
          ? {}
          : { expectExpiresAtMs: request.expiresAtMs, signers: request.signers }),
      },
    );
    if (!moved.ok) return lost(moved.schedule);
    if (notices.length > 0) this.#onNoticeQueued();
    return { outcome: "done", schedule: moved.schedule };
  }

  async #expire(schedule: Schedule): Promise<ScheduleStepResult> {
    const { stores, now } = this.#context;
    if (schedule.resuming) return this.#refuseResume(schedule, "expire", SYSTEM);
    const audit = scheduleAudit(schedule, "expire", { id: 0, role: "system" }, now());
    const moved = await stores.schedules.move(
      schedule.id,
      SCHEDULE_MOVES.expire.from,
      SCHEDULE_MOVES.expire.to,
      {},
      { audit },
    );
    return moved.ok ? { outcome: "expired", schedule: moved.schedule } : lost(moved.schedule);
  }

  #notice(
    schedule: Schedule,
    what: "approval_requested" | "approval_decided" | "resume_refused",
  ): Notice {
    return { kind: "schedule", what, scheduleId: schedule.id, runKey: "-" };
  }

  /** The registered name behind `phone`, once its operator takes payouts. */
  async #registeredName(
    phone: string,
    operator: Schedule["operator"],
  ): Promise<string | PrepareFailure> {
    try {
      if (!(await this.#lookups.isOperational(operator, "disbursement"))) {
        return { reason: "operator_unavailable", operator, kind: "disbursement" };
      }
      const name = cleanName(await this.#context.gateway.getUserInfo(phone));
      return name === "" ? { reason: "no_account", phone } : name;
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        return { reason: "no_account", phone };
      }
      if (error instanceof LimiterUnavailableError) throw error;
      if (error instanceof PaymentClientError) return { reason: "api_error", error };
      throw error;
    }
  }
}

/** Roles whose pause only they lift (an admin, an approver). */
const STAFF_PAUSERS: readonly Role[] = ["admin", "approver"];

/** The bot, as the actor of what it does on its own (an approval nobody gave in time). */
const SYSTEM: Actor = { id: 0, role: "system" };

/** Pause, Resume, Delete: the schedule's owner, or whoever may manage staff (admins). */
export function mayChange(asker: Asker, schedule: Pick<Schedule, "ownerId">): boolean {
  if (asker === null) return false;
  return asker.userId === schedule.ownerId ? may(asker, "read") : may(asker, "manage_staff");
}

function lost(schedule: Schedule | null): ScheduleStepResult {
  return schedule ? { outcome: "already", schedule } : { outcome: "not_found" };
}
