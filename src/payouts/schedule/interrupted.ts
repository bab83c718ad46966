/**
 * Runs interrupted while sending: a replica that died between recording a run `sending` and
 * finishing its send leaves it `sending`, and nothing else would ever look at it again (the
 * scheduler moves past a run recorded in any state). Each such run is settled from its
 * payout's real state, its owner told in the same step (`run_interrupted`). The claim is the
 * only gate, as for every send: a run whose payout was claimed is never sent again.
 */
import { SYSTEM_ACTOR } from "../../model/audit.js";
import type { ScheduleNoticeKind } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import { runBatchId, runPayoutId, type Schedule, type ScheduleRun } from "../../model/schedule.js";
import type { StepContext } from "../types.js";
import type { BatchSchedules } from "./batch-schedules.js";
import {
  actorOf,
  NEVER_SENT,
  type RunOutcome,
  type ScheduleRuns,
  SEND_ANYWAY_STATES,
} from "./runs.js";
import type { ScheduleSettings } from "./schedules.js";

export interface InterruptedRunsOptions {
  context: StepContext;
  runs: ScheduleRuns;
  settings: ScheduleSettings;
  /** A scheduled batch's run is its batch, not a payout: made once, by its stable id. */
  batchRuns: BatchSchedules;
  onNoticeQueued?: () => void;
}

/**
 * A run `sending` this long is one whose sender died before it was done: a send takes a few
 * Redis calls between recording it `sending` and its claim (a failover's retries included,
 * well under this), and its payout stays claimable for an hour.
 */
export const STUCK_SENDING_MS = 5 * 60_000;
/** Interrupted runs settled per sweep (the rest wait for the next one). */
const STUCK_PER_SWEEP = 50;
/** What the owner of an interrupted run is told, whatever came of it. */
const TOLD: ScheduleNoticeKind = "run_interrupted";
/** The audit entry's mark of a run settled here. */
const INTERRUPTED = { interrupted: "yes" } as const;

export class InterruptedRuns {
  readonly #options: InterruptedRunsOptions;

  constructor(options: InterruptedRunsOptions) {
    this.#options = options;
  }

  /** Every run left `sending` for over STUCK_SENDING_MS at `nowMs`, settled. */
  async sweep(nowMs: number): Promise<void> {
    const { stores, log } = this.#options.context;
    const stuck = await stores.schedules.sendingRuns(nowMs - STUCK_SENDING_MS, STUCK_PER_SWEEP);
    for (const run of stuck) {
      const outcome = await this.settle(run);
      log.warn(
        { scheduleId: run.scheduleId, runKey: run.key, outcome },
        "interrupted scheduled run settled",
      );
    }
  }

  /**
   * One interrupted run, from its payout's real state:
   * - claimed (whatever came of it since): recorded sent, never sent again; a claim never
   *   sent becomes `unknown` by the stranded rule, like any payout's;
   * - cancelled, expired or refused: it never left; recorded missed;
   * - not claimed (or never made): sent now through the same claim, once, while within
   *   SCHEDULE_CATCH_UP_HOURS of its time, its schedule active or finished and its payout
   *   still claimable; otherwise its payout cancelled first (a claim that wins that race
   *   means it was claimed: recorded sent) and the run recorded missed.
   */
  async settle(run: ScheduleRun): Promise<RunOutcome> {
    const { context, settings, runs } = this.#options;
    const { stores, now } = context;
    const schedule = await stores.schedules.get(run.scheduleId);
    // Gone after the retention: nothing left to tell (the store forgets its index entry).
    if (!schedule) return "already";
    if (schedule.batch) return this.#batchRun(schedule, run);
    const payoutId = runPayoutId(schedule.id, run.key);
    const found = await stores.payouts.get(payoutId);
    if (found && found.state !== "awaiting_confirmation") {
      return this.#settled(schedule, run, found);
    }
    const nowMs = now();
    const late = nowMs - run.atMs > settings.catchUpMs;
    const stopped = !SEND_ANYWAY_STATES.includes(schedule.state);
    const lapsed = found !== null && found.expiresAtMs <= nowMs;
    if (late || stopped || lapsed) {
      if (found) {
        const cancel = await stores.payouts.transition(payoutId, "cancel", {}, {});
        if (!cancel.ok) {
          const moved = await stores.payouts.get(payoutId);
          if (moved && moved.state !== "awaiting_confirmation") {
            return this.#settled(schedule, run, moved);
          }
          return "retrying";
        }
      }
      return this.#missed(
        schedule,
        run,
        late ? "late" : stopped ? "schedule_stopped" : "payout_expired",
      );
    }
    // Paid to the name its send started with (Send anyway on a changed name: the name shown).
    const shown =
      run.heldBecause === "name_changed" && run.decidedBy !== undefined
        ? (run.currentName ?? schedule.recipientName)
        : schedule.recipientName;
    const name = found?.recipientName ?? shown;
    const outcome = await runs.claimAndSend(
      schedule,
      run,
      actorOf(schedule),
      name,
      INTERRUPTED,
      TOLD,
    );
    this.#options.onNoticeQueued?.();
    return outcome;
  }

  async #missed(schedule: Schedule, run: ScheduleRun, why: string): Promise<RunOutcome> {
    const missed = { ...run, state: "missed" as const };
    const details = { ...INTERRUPTED, why };
    await this.#options.runs.record(
      schedule,
      missed,
      ["sending"],
      "run_missed",
      SYSTEM_ACTOR,
      details,
      TOLD,
    );
    this.#options.onNoticeQueued?.();
    return "missed";
  }

  /**
   * An interrupted run of a scheduled batch: its batch (stable id) made now, or found made
   * before the crash, and the run recorded sent; the batch worker pays its rows with every
   * row's own guard. Never turned into one payout. A batch not made yet is not made once
   * the run is past SCHEDULE_CATCH_UP_HOURS or its schedule stopped: the run is missed.
   */
  async #batchRun(schedule: Schedule, run: ScheduleRun): Promise<RunOutcome> {
    const { context, settings, batchRuns } = this.#options;
    const made = await context.stores.batches.get(runBatchId(schedule.id, run.key));
    if (made === null) {
      const late = context.now() - run.atMs > settings.catchUpMs;
      const stopped = !SEND_ANYWAY_STATES.includes(schedule.state);
      if (late || stopped) return this.#missed(schedule, run, late ? "late" : "schedule_stopped");
    }
    return batchRuns.startRun(schedule, run, ["sending"]);
  }

  /** An interrupted run whose payout moved on from awaiting its claim. */
  async #settled(schedule: Schedule, run: ScheduleRun, payout: Payout): Promise<RunOutcome> {
    const { runs } = this.#options;
    const never = NEVER_SENT.includes(payout.state);
    const settled = { ...run, state: never ? "missed" : "sent", payoutId: payout.id } as const;
    const step = never ? "run_missed" : "run_sent";
    await runs.record(schedule, settled, ["sending"], step, SYSTEM_ACTOR, INTERRUPTED, TOLD);
    this.#options.onNoticeQueued?.();
    return never ? "not_sendable" : "already";
  }
}
