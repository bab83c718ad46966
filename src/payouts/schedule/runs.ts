/**
 * What happens to one run of a schedule, whoever asks (the scheduler at its time, its owner
 * pressing Send anyway or Skip): the run's payout created once (its id is
 * `{scheduleId}-{runKey}`, so a second create finds the first) and claimed with the same
 * atomic move as a Confirm, which only one caller can make, and only once the run was
 * recorded `sending` from the state its caller read (so a Skip, Pause or Delete that came
 * first wins); the run recorded (a compare-and-set on its recorded state, with its notice
 * and audit entry in the same step); then the one request through the submission. A claim
 * made and never sent (a crash) becomes `unknown` by the stranded rule, like any payout:
 * never retried. A run left `sending` by a crash is settled by InterruptedRuns.
 */
import { type Actor, SYSTEM_ACTOR, staffActor } from "../../model/audit.js";
import { type Notice, noticeKey, type ScheduleNoticeKind } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import {
  type HoldReason,
  type RunState,
  runPayoutId,
  SCHEDULE_MOVES,
  type Schedule,
  type ScheduleRun,
  type ScheduleState,
} from "../../model/schedule.js";
import { cleanName } from "../../model/text.js";
import { PaymentApiError } from "../../payments/errors.js";
import { randomHex } from "../../random.js";
import { PayoutExistsError } from "../../store/errors.js";
import { namesMatch } from "../batch/checks.js";
import type { KeepAlive } from "../batch/lease.js";
import { takeBatchSlot } from "../batch/rows.js";
import type { Limits } from "../limits.js";
import { type Asker, may, needsApproval, PAYING_ROLES } from "../policy.js";
import { retryPayoutWrite } from "../store-retry.js";
import type { Submission } from "../submission.js";
import type { StepContext } from "../types.js";
import { scheduleAudit } from "./audit.js";
import type { RunOutcome, RunPress } from "./run-results.js";
import type { ScheduleSettings } from "./schedules.js";

export type { RunOutcome, RunPress };

export interface ScheduleRunsOptions {
  context: StepContext;
  submission: Submission;
  limits: Limits;
  settings: ScheduleSettings;
  /**
   * Slots of each rate-limit window a run leaves to interactive /pay (the batch's share:
   * runs are background work, like batch rows).
   */
  leave: number;
  onNoticeQueued?: () => void;
}

/** A run payout in these states never left and never will: its run is not recorded sent. */
export const NEVER_SENT: readonly Payout["state"][] = ["cancelled", "expired", "rejected"];

/**
 * Send anyway on a held run: while its schedule is active, or finished (its last run was the
 * one held, e.g. a one-off); never once paused or deleted (an admin's way to stop money).
 */
export const SEND_ANYWAY_STATES: readonly ScheduleState[] = ["active", "finished"];

/** A run payout not claimed (the scheduler died first) stays claimable this long. */
const RUN_CLAIMABLE_MS = 3_600_000;

export class ScheduleRuns {
  readonly #options: ScheduleRunsOptions;
  /** The scheduler is stopping: waits for a rate-limit slot give up (see `keepAlive`). */
  #stopping = false;

  constructor(options: ScheduleRunsOptions) {
    this.#options = options;
  }

  /** The scheduler stopping (true) or started (false). */
  stopping(stopping: boolean): void {
    this.#stopping = stopping;
  }

  /**
   * Called every second while a run waits for a rate-limit slot: once the scheduler stops it
   * throws, and the wait ends (a run recorded `sending` and not claimed is sent later by
   * InterruptedRuns; a look-up not made leaves the run due), so a stop never waits for the
   * window.
   */
  readonly keepAlive: KeepAlive = async () => {
    if (this.#stopping) throw new Error("the scheduler is stopping: no longer waiting for a slot");
  };

  /**
   * Sends a run: the run recorded `sending` (compare-and-set from `from`, while its schedule
   * is active), then its payout created (or found: created before a crash) and claimed like
   * a Confirm, the run recorded sent, then the one request through the submission. Also
   * used by Send anyway on a held run (`from: ["held"]`, the owner as actor).
   */
  async send(
    schedule: Schedule,
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    actor: Actor,
    recipientName = schedule.recipientName,
    sentDetails: Record<string, string> = {},
  ): Promise<RunOutcome> {
    const { stores, now } = this.#options.context;
    const payoutId = runPayoutId(schedule.id, run.key);
    const before = await stores.payouts.get(payoutId);
    if (before && before.state !== "awaiting_confirmation") {
      // Cancelled (held over the limit), expired or refused: it never left and never will.
      if (NEVER_SENT.includes(before.state)) {
        if (!from.includes("held")) {
          await this.record(schedule, { ...run, state: "missed" }, from, "run_missed");
        }
        return "not_sendable";
      }
      // Claimed before: it may have been sent. Never again; only record it.
      await this.record(schedule, { ...run, state: "sent", payoutId }, from, null);
      return "already";
    }
    // The run first, while it is still in the state read and its schedule active: a Skip,
    // Pause or Delete that came first wins (and no payout is made for it), and neither can
    // change the run once it is sending.
    const sending = await stores.schedules.writeRun(
      { ...run, state: "sending", payoutId, updatedAtMs: now() },
      from,
      { scheduleIn: from.includes("held") ? SEND_ANYWAY_STATES : ["active"] },
    );
    if (!sending.ok) return "already";
    return this.claimAndSend(schedule, run, actor, recipientName, sentDetails);
  }

  /**
   * The rest of a send, once its run is recorded `sending` (by `send`, or before a crash:
   * see InterruptedRuns): its payout created (or found), claimed, the run recorded sent, the
   * request. `run` is what the run goes back to when the claim finds no payout; `tell`, a
   * notice queued with the run's `sent` record.
   */
  async claimAndSend(
    schedule: Schedule,
    run: ScheduleRun,
    actor: Actor,
    recipientName: string,
    sentDetails: Record<string, string>,
    tell?: ScheduleNoticeKind,
  ): Promise<RunOutcome> {
    const { context, limits, submission } = this.#options;
    const { stores, log, now } = context;
    const payout = await this.#runPayout(schedule, run, recipientName);
    if (payout.state !== "awaiting_confirmation") {
      // Moved on since it was read (another caller): never claimed here.
      if (NEVER_SENT.includes(payout.state)) {
        await this.record(schedule, run, ["sending"], null);
        return "not_sendable";
      }
      await this.record(
        schedule,
        { ...run, state: "sent", payoutId: payout.id },
        ["sending"],
        null,
      );
      return "already";
    }
    // Our own rate limit is never a refusal: the run waits for a slot (leaving /pay its
    // share) as long as the window needs, before its claim, so the request leaves at once.
    // Only the client closing ends the wait (RateLimitedError): the run stays `sending`,
    // unclaimed, and InterruptedRuns sends it later.
    const { leave } = this.#options;
    const checked = await takeBatchSlot(context.gateway, "disburse", leave, this.keepAlive);
    const claimId = randomHex(8);
    const options = {
      claimId,
      actor,
      // The owner's role now, in the claim's own step: removed or demoted since, refused.
      expect: { initiatorId: schedule.ownerId, initiatorRoles: PAYING_ROLES },
      reserve: limits.reservation("disbursement"),
      stampSentAtMs: checked,
      durable: true,
    };
    const claim = await retryPayoutWrite(log, payout.id, "claim", () =>
      stores.payouts.transition(payout.id, "confirm", { submittedAtMs: now() }, options),
    );
    if (!claim.ok) {
      if (claim.reason === "over_limit" || claim.reason === "initiator_not_allowed") {
        await stores.payouts.transition(payout.id, "cancel", {}, { actor: SYSTEM_ACTOR });
        if (claim.reason === "initiator_not_allowed") {
          await this.record(schedule, run, ["sending"], null);
          return this.pauseForOwner(schedule);
        }
        return this.hold(schedule, run, ["sending"], "over_limit");
      }
      // Gone before it was claimed (it cannot be sent): the run is tried again later.
      if (claim.reason === "not_found") {
        await this.record(schedule, run, ["sending"], null);
        return "retrying";
      }
      // Someone else claimed it first (another replica): theirs to send.
      await this.record(
        schedule,
        { ...run, state: "sent", payoutId: payout.id },
        ["sending"],
        null,
      );
      return "already";
    }
    const sent = { ...run, state: "sent" as const, payoutId: payout.id, updatedAtMs: now() };
    await this.record(schedule, sent, ["sending"], "run_sent", actor, sentDetails, tell);
    const result = await submission.submit(
      { payout: claim.payout, claimId, actor },
      { checked: checked && claim.durable },
    );
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
      SCHEDULE_MOVES.pause.from,
      SCHEDULE_MOVES.pause.to,
      { pausedBecause: "owner_not_allowed", changedBy: 0 },
      { notices, audit },
    );
    this.#options.onNoticeQueued?.();
    return "paused";
  }

  /**
   * Send anyway, on a held run: its owner only, while they may pay and the schedule is
   * active or finished (paused or deleted: refused), within SCHEDULE_CATCH_UP_HOURS of the
   * run's time (later, it is missed: never sent). The number is looked up again at the press: no account, refused; a name other
   * than the one the hold showed, held again with it. A run held for a changed name is paid
   * to the name shown, for this run only: the schedule keeps the approved name, so the next
   * run with the new name is held again.
   */
  async sendAnyway(scheduleId: string, key: string, asker: Asker): Promise<RunPress> {
    const found = await this.#pressed(scheduleId, key, asker, true);
    if ("outcome" in found) return found;
    const { schedule, run } = found;
    const { now } = this.#options.context;
    if (run.state !== "held") return { outcome: "already" };
    if (!SEND_ANYWAY_STATES.includes(schedule.state)) return { outcome: "inactive" };
    if (now() - run.atMs > this.#options.settings.catchUpMs) {
      await this.record(schedule, { ...run, state: "missed" }, ["held"], "run_missed");
      this.#options.onNoticeQueued?.();
      return { outcome: "too_late" };
    }
    const registered = await this.#nameNow(schedule);
    if (registered === "failed") return { outcome: "lookup_failed" };
    if (registered === "") return { outcome: "no_account" };
    const shown =
      run.heldBecause === "name_changed"
        ? (run.currentName ?? schedule.recipientName)
        : schedule.recipientName;
    if (!namesMatch(shown, registered)) {
      const held = { ...run, heldBecause: "name_changed" as const, currentName: registered };
      const again = await this.record(schedule, held, ["held"], "run_held");
      this.#options.onNoticeQueued?.();
      return again ? { outcome: "held_again" } : { outcome: "already" };
    }
    const actor: Actor = { id: asker?.userId ?? 0, role: asker?.role ?? "payer" };
    const decided = { ...run, decidedBy: actor.id };
    const { approvalThresholdXaf, stepUpThresholdXaf } = this.#options.settings;
    if (
      asker !== null &&
      (needsApproval(schedule.amount, approvalThresholdXaf) ||
        needsApproval(schedule.amount, stepUpThresholdXaf))
    ) {
      return this.#sendAsDecided(schedule, decided, asker, shown);
    }
    const outcome = await this.send(schedule, decided, ["held"], actor, shown, {
      sentAnyway: "yes",
      recipientName: shown,
    });
    if (outcome === "sent") return { outcome: "sent" };
    if (outcome === "not_sendable") return { outcome: "not_sendable" };
    return { outcome: "not_sent", why: outcome };
  }

  /**
   * Send anyway at or over a threshold is a new decision, not the one approved for the
   * schedule (perhaps for another name): the run's payout, made out to the name shown, goes
   * through the very Confirm a /pay prompt does (payouts/submission.ts), so an approver
   * sees the new name on their card at or over APPROVAL_THRESHOLD_XAF, the owner's PIN is
   * asked at or over STEP_UP_THRESHOLD_XAF, and the day's caps and the owner's standing are
   * checked in its claim. The run is recorded sent to that payout first (one press wins):
   * from then on the payout follows the payout table (approved, rejected, expired, ...).
   */
  async #sendAsDecided(
    schedule: Schedule,
    run: ScheduleRun,
    asker: NonNullable<Asker>,
    shown: string,
  ): Promise<RunPress> {
    const { context, submission } = this.#options;
    const { stores, now } = context;
    const payout = await this.#runPayout(schedule, run, shown);
    if (payout.state !== "awaiting_confirmation") {
      return NEVER_SENT.includes(payout.state)
        ? { outcome: "not_sendable" }
        : { outcome: "already" };
    }
    const nowMs = now();
    const reason: Record<string, string> = run.heldBecause ? { reason: run.heldBecause } : {};
    const details = { runKey: run.key, payoutId: payout.id, sentAnyway: "yes", ...reason };
    const sent = await stores.schedules.writeRun(
      { ...run, state: "sent", payoutId: payout.id, updatedAtMs: nowMs },
      ["held"],
      {
        scheduleIn: SEND_ANYWAY_STATES,
        audit: scheduleAudit(schedule, "run_sent", staffActor(asker), nowMs, {
          ...details,
          recipientName: shown,
        }),
      },
    );
    if (!sent.ok) return { outcome: "already" };
    const confirmed = await submission.confirm(payout.id, asker);
    switch (confirmed.outcome) {
      case "claimed": {
        const result = await confirmed.submitted;
        if (result.outcome !== "pending") await this.#notify(schedule, run.key, "run_not_sent");
        return { outcome: "sent" };
      }
      case "approval_requested":
        return { outcome: "approval_requested" };
      case "step_up_required":
        return { outcome: "confirm_with_pin", payout: confirmed.payout };
      case "forbidden":
      case "already":
        return { outcome: confirmed.outcome === "already" ? "already" : "not_allowed" };
      default:
        // Over a cap, expired or gone: it never left and never will.
        await stores.payouts.transition(payout.id, "cancel", {}, { actor: SYSTEM_ACTOR });
        return { outcome: "not_sendable" };
    }
  }

  /** The name registered for the schedule's number now ("": no account; "failed": unknown). */
  async #nameNow(schedule: Schedule): Promise<string> {
    const { gateway, log } = this.#options.context;
    try {
      return cleanName(await gateway.getUserInfo(schedule.phone));
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) return "";
      log.warn({ err: error, scheduleId: schedule.id }, "send anyway: name lookup failed");
      return "failed";
    }
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

  async hold(
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
    await this.record(schedule, held, from, "run_held");
    return "held";
  }

  /**
   * Writes the run (compare-and-set on its recorded state), audited as `step` with the
   * notice that goes with it (or `tell`, instead), in one step; `step` null: recorded
   * without an audit entry.
   */
  async record(
    schedule: Schedule,
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    step: "run_sent" | "run_held" | "run_missed" | null,
    actor: Actor = SYSTEM_ACTOR,
    extra: Record<string, string> = {},
    tell?: ScheduleNoticeKind,
  ): Promise<boolean> {
    const { stores, now } = this.#options.context;
    const nowMs = now();
    const notice: Record<string, ScheduleNoticeKind> = {
      run_held: "run_held",
      run_missed: "run_missed",
    };
    const what = tell ?? (step === null ? undefined : notice[step]);
    const details = {
      runKey: run.key,
      ...(run.payoutId ? { payoutId: run.payoutId } : {}),
      ...(run.heldBecause ? { reason: run.heldBecause } : {}),
      ...extra,
    };
    const written = await stores.schedules.writeRun({ ...run, updatedAtMs: nowMs }, from, {
      ...(what
        ? { notices: [{ kind: "schedule", what, scheduleId: schedule.id, runKey: run.key }] }
        : {}),
      ...(step ? { audit: scheduleAudit(schedule, step, actor, nowMs, details) } : {}),
    });
    return written.ok;
  }

  async #notify(schedule: Schedule, runKey: string, what: ScheduleNoticeKind): Promise<void> {
    const { stores, now } = this.#options.context;
    const notice: Notice = { kind: "schedule", what, scheduleId: schedule.id, runKey };
    await stores.outbox.schedule(noticeKey(notice), now(), { wake: true });
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
}

/** The schedule's owner, as the actor of the runs the bot sends for them. */
export function actorOf(schedule: Schedule): Actor {
  return { id: schedule.ownerId, role: schedule.ownerRole };
}
