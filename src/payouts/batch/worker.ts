/**
 * The batch worker: on the background runner, it takes each active batch under a lease of
 * its own (one replica works on a batch at a time; another takes over when that one dies),
 * and does the batch's next stretch of work:
 * - `checking`: looks up each row's registered name, within the shared rate limit but
 *   leaving a share of it to interactive /pay, then shows the preview;
 * - `running`: pays each payable row once, as its own payout (`{batchId}-{row}`), through
 *   the same claim-then-send path as a single payout. A row whose payout exists and has
 *   left `awaiting_confirmation` was claimed before (it may have been sent): it is never
 *   claimed again. A row whose outcome is unknown is not retried: the summary reports it;
 * - `sent`: counts where the rows stand, and once none is in flight (or after
 *   PAYOUT_STUCK_AFTER_HOURS) sends the summary, once.
 * Every step resumes from the batch's cursors after a restart.
 */

import { randomUUID } from "node:crypto";
import type { Metrics } from "../../metrics/metrics.js";
import { type Actor, SYSTEM_ACTOR } from "../../model/audit.js";
import {
  type Batch,
  type BatchPatch,
  type BatchRow,
  type BatchState,
  type RowProblem,
  WORKED_BATCH_STATES,
} from "../../model/batch.js";
import type { Notice } from "../../model/notice.js";
import { randomHex } from "../../random.js";
import type { BatchMoveOptions, LeaseStore } from "../../store/types.js";
import type { Limits } from "../limits.js";
import type { Lookups } from "../lookups.js";
import { BackgroundRunner, IDLE_ROUND } from "../loops/runner.js";
import { PAYING_ROLES } from "../policy.js";
import { retryPayoutWrite } from "../store-retry.js";
import type { Submission } from "../submission.js";
import type { StepContext } from "../types.js";
import { expireIfLate } from "./approval.js";
import { isPayable, payableOf } from "./checks.js";
import { type KeepAlive, leaseKeeper } from "./lease.js";
import { RowRepeats } from "./repeats.js";
import { allRows, inPool, lookUpRow, rowPayoutOf, takeBatchSlot } from "./rows.js";

export interface BatchWorkerOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  context: StepContext;
  lookups: Lookups;
  submission: Submission;
  limits: Limits;
  leases: LeaseStore;
  /** Rate-limit slots of each window left to interactive /pay (BATCH_RATE_SHARE_PERCENT). */
  leave: number;
  /** How long a preview can be confirmed. */
  previewTtlMs: number;
  /** DUPLICATE_WINDOW_MINUTES in ms: rows repeating a payout this recent are marked; 0: off. */
  duplicateWindowMs?: number;
  /** PAYOUT_STUCK_AFTER_HOURS: the summary is sent by then even with rows still pending. */
  stuckAfterMs: number;
  /** Rows worked on at the same time. Default 4. */
  concurrency?: number;
  /** Pause between rounds. Default 500 ms. */
  tickMs?: number;
  /**
   * With no batch at all, a round this often (merchant runtimes; an upload, a Confirm or a
   * scheduled run in this process wakes the worker). Default 10 ticks.
   */
  restMs?: number;
  /** Called after a notice was queued (to deliver it at once). */
  onNoticeQueued?: () => void;
}

/** Claims refused for good: the row is not paid, and says why. */
const ROW_REFUSALS: Partial<Record<string, RowProblem>> = {
  over_limit: "over_limit",
  initiator_not_allowed: "not_allowed",
};

/** A batch's lease: renewed after each stretch of rows, and every third of it while waiting. */
const LEASE_MS = 30_000;
/** How long one batch is worked on before the round moves to the next one. */
const SLICE_MS = 10_000;
/** The progress message is edited at most this often. */
const PROGRESS_EVERY_MS = 2_000;
/**
 * In a group, at most this often: Telegram allows about 20 messages a minute in one group,
 * and the batch's other messages (preview, summary, people's replies) share that minute.
 */
const GROUP_PROGRESS_EVERY_MS = 5_000;
/** Where the rows stand is counted at most this often while they settle. */
const TALLY_EVERY_MS = 3_000;

const DEFAULT_TICK_MS = 500;
/** With no batch at all, a round every this many ticks (5 s by default). */
const IDLE_TICKS = 10;

export class BatchWorker {
  readonly #options: BatchWorkerOptions;
  readonly #runner: BackgroundRunner;
  readonly #owner = randomUUID();
  readonly #progressAt = new Map<string, number>();
  readonly #talliedAt = new Map<string, number>();
  readonly #stopping = new AbortController();

  constructor(options: BatchWorkerOptions) {
    this.#options = options;
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "batch round",
      logger: options.context.log,
      tickMs: options.tickMs ?? DEFAULT_TICK_MS,
      // No batch at all: looked for less often (an upload, a Confirm or a scheduled run in
      // this process wakes the worker; another replica's batch waits at most this).
      idleTickMs: options.restMs ?? IDLE_TICKS * (options.tickMs ?? DEFAULT_TICK_MS),
      round: () => this.round(),
    });
  }

  start(): void {
    this.#runner.start();
  }

  async stop(): Promise<void> {
    this.#stopping.abort(); // ends waits for a rate-limit slot within a second
    await this.#runner.stop();
  }

  /** New work (an upload, a Confirm): run a round now. */
  wake(): void {
    this.#runner.wake();
  }

  /**
   * One stretch of work on each active batch this replica can lease. The lease is kept
   * from round to round while the batch has work, and handed back once it has none.
   */
  async round(): Promise<typeof IDLE_ROUND | undefined> {
    const { stores } = this.#options.context;
    const active = await stores.batches.active();
    if (active.length === 0) return IDLE_ROUND;
    for (const id of active) {
      if (!(await this.#options.leases.acquire(`batch:${id}`, this.#owner, LEASE_MS))) continue;
      const batch = await stores.batches.get(id);
      const after = batch ? await this.#step(batch) : null;
      if (after === null || !WORKED_BATCH_STATES.includes(after)) {
        await this.#options.leases.release(`batch:${id}`, this.#owner);
      }
    }
    return undefined;
  }

  /** The batch's next stretch of work; answers its state after it (null: gone). */
  #step(batch: Batch): Promise<BatchState | null> {
    const untilMs = performance.now() + SLICE_MS;
    if (batch.state === "checking") return this.#check(batch, untilMs);
    if (batch.state === "running") return this.#send(batch, untilMs);
    if (batch.state === "sent") return this.#finish(batch);
    // Nobody approved it within APPROVAL_TTL_HOURS: cancelled (the bot's own move).
    if (batch.state === "awaiting_approval") {
      return expireIfLate(this.#options.context, batch, this.#options.onNoticeQueued);
    }
    return Promise.resolve(batch.state);
  }

  /**
   * Sets bookkeeping fields, with a progress notice when the last one is old enough (the
   * notifier is woken once it is queued); null when the batch is gone.
   */
  async #record(batch: Batch, patch: BatchPatch): Promise<Batch | null> {
    const batchId = batch.id;
    const nowMs = this.#options.context.now();
    // Groups (and channels) have negative chat ids.
    const everyMs = batch.chatId < 0 ? GROUP_PROGRESS_EVERY_MS : PROGRESS_EVERY_MS;
    const due = nowMs - (this.#progressAt.get(batchId) ?? 0) >= everyMs;
    const notices: Notice[] = due ? [{ kind: "batch_progress", batchId }] : [];
    if (due) this.#progressAt.set(batchId, nowMs);
    const updated = await this.#options.context.stores.batches.update(batchId, patch, notices);
    if (due) this.#options.onNoticeQueued?.();
    return updated;
  }

  /** Moves the batch and wakes the notifier for the notices queued with the move. */
  async #move(
    batch: Batch,
    to: BatchState,
    patch: BatchPatch,
    options: BatchMoveOptions,
  ): Promise<BatchState | null> {
    const stores = this.#options.context.stores;
    const moved = await stores.batches.move(batch.id, [batch.state], to, patch, options);
    this.#options.onNoticeQueued?.();
    return moved.batch?.state ?? null;
  }

  /** Keeps the batch's lease; false when another replica took it (then stop here). */
  #renew(id: string): Promise<boolean> {
    return this.#options.leases.renew(`batch:${id}`, this.#owner, LEASE_MS);
  }

  // ── checks ────────────────────────────────────────────────────────────────────────

  async #check(start: Batch, untilMs: number): Promise<BatchState | null> {
    const { stores, now } = this.#options.context;
    let batch = start;
    const windowMs = this.#options.duplicateWindowMs ?? 0;
    const repeats =
      windowMs > 0 ? await RowRepeats.load(stores, batch, { windowMs, nowMs: now() }) : null;
    const keepAlive = this.#keepLease(batch.id);
    const deps = { ...this.#options, gateway: this.#options.context.gateway, keepAlive };
    while (batch.checkedRows < batch.rowCount && performance.now() < untilMs) {
      const rows = await stores.batches.rows(batch.id, batch.checkedRows, this.#chunk());
      const included = batch.includedRepeats !== undefined;
      const checked = await inPool(rows, this.#concurrency(), async (row) => {
        // The payer chose to include the rows that repeat recent payouts: they are paid.
        if (included && row.problem === "recent_duplicate") return { ...row, problem: undefined };
        const looked = await lookUpRow(row, deps);
        return repeats && looked !== row ? repeats.mark(looked) : looked;
      });
      await stores.batches.setRows(
        batch.id,
        checked.map((row, offset) => ({ index: batch.checkedRows + offset, row })),
      );
      const patch = {
        checkedRows: batch.checkedRows + rows.length,
        checkStartedAtMs: batch.checkStartedAtMs ?? now(),
      };
      const updated = await this.#record(batch, patch);
      if (updated?.state !== "checking") return updated?.state ?? null;
      if (!(await this.#renew(batch.id))) return updated.state;
      batch = updated;
    }
    return batch.checkedRows >= batch.rowCount ? this.#checked(batch) : batch.state;
  }

  /**
   * Every row checked: the preview (rows to pay, total) is shown for the payer to confirm;
   * a scheduled batch's run goes straight to paying (its schedule's Confirm covers it).
   */
  async #checked(batch: Batch): Promise<BatchState | null> {
    const { stores, now } = this.#options.context;
    const figures = payableOf(await allRows(stores, batch.id));
    if (batch.run) {
      const details = { ...figures, scheduleId: batch.run.scheduleId, runKey: batch.run.runKey };
      return this.#move(
        batch,
        "running",
        { ...figures, confirmedAtMs: now() },
        {
          notices: [{ kind: "batch_progress", batchId: batch.id }],
          audit: { actor: SYSTEM_ACTOR, action: "run_start", details },
        },
      );
    }
    const notices: Notice[] = [
      { kind: "batch_progress", batchId: batch.id },
      { kind: "batch_preview", batchId: batch.id },
    ];
    const patch = { ...figures, expiresAtMs: now() + this.#options.previewTtlMs };
    return this.#move(batch, "ready", patch, {
      notices,
      audit: { actor: SYSTEM_ACTOR, action: "checked", details: figures },
    });
  }

  // ── payments ──────────────────────────────────────────────────────────────────────

  async #send(start: Batch, untilMs: number): Promise<BatchState | null> {
    const { stores, now } = this.#options.context;
    let batch = start;
    const keepAlive = this.#keepLease(batch.id);
    const sendRow = (row: BatchRow) => this.#sendRow(batch, row, keepAlive);
    while (batch.doneRows < batch.rowCount && performance.now() < untilMs) {
      const rows = await stores.batches.rows(batch.id, batch.doneRows, this.#chunk());
      const handled = await inPool(rows, this.#concurrency(), sendRow);
      const changed = handled.flatMap((row, offset) =>
        row === rows[offset] ? [] : [{ index: batch.doneRows + offset, row }],
      );
      await stores.batches.setRows(batch.id, changed);
      const updated = await this.#record(batch, { doneRows: batch.doneRows + rows.length });
      if (updated?.state !== "running") return updated?.state ?? null;
      if (!(await this.#renew(batch.id))) return updated.state;
      batch = updated;
    }
    if (batch.doneRows < batch.rowCount) return batch.state;
    const notices: Notice[] = [{ kind: "batch_progress", batchId: batch.id }];
    return this.#move(batch, "sent", { sentAtMs: now() }, { notices });
  }

  /** Pays one row, exactly once; answers the row as it now stands. */
  async #sendRow(batch: Batch, row: BatchRow, keepAlive: KeepAlive): Promise<BatchRow> {
    if (!isPayable(row)) return row;
    const { stores, log, now } = this.#options.context;
    const actor: Actor = { id: batch.initiatorId, role: batch.initiatorRole };
    const payout = await rowPayoutOf(this.#options.context, batch, row, actor);
    // Claimed before (this worker or one that died): it may have been sent. Never again.
    if (payout.state !== "awaiting_confirmation") return row;
    const { gateway } = this.#options.context;
    const checked = await takeBatchSlot(gateway, "disburse", this.#options.leave, keepAlive);
    const claimId = randomHex(8);
    const options = {
      claimId,
      actor,
      // The initiator's role now, not the one recorded at upload: removed or demoted since,
      // the claim refuses every row left.
      expect: { initiatorId: batch.initiatorId, initiatorRoles: PAYING_ROLES },
      reserve: this.#options.limits.reservation("disbursement"),
      stampSentAtMs: checked,
      durable: true,
    };
    const claim = await retryPayoutWrite(log, payout.id, "claim", () =>
      stores.payouts.transition(payout.id, "confirm", { submittedAtMs: now() }, options),
    );
    if (!claim.ok) {
      // `batch_stopped`: the claim itself found the batch stopped (Stop is decided there,
      // atomically, so no row is sent after it): this row is one of the unsent ones.
      const problem = ROW_REFUSALS[claim.reason];
      if (problem === undefined) return row;
      await stores.payouts.transition(payout.id, "cancel", {}, { actor: SYSTEM_ACTOR });
      return { ...row, problem };
    }
    const claimed = { payout: claim.payout, claimId, actor };
    await this.#options.submission.submit(claimed, { checked: checked && claim.durable });
    return row;
  }

  // ── settlement ────────────────────────────────────────────────────────────────────

  /** Counts where the rows stand; once none is in flight (or stuck too long), the summary. */
  async #finish(batch: Batch): Promise<BatchState | null> {
    const { stores, now } = this.#options.context;
    const last = this.#talliedAt.get(batch.id) ?? 0;
    if (now() - last < TALLY_EVERY_MS) return batch.state;
    this.#talliedAt.set(batch.id, now());
    const tally = await stores.batches.tally(batch.id);
    const stuck = now() - (batch.sentAtMs ?? batch.updatedAtMs) > this.#options.stuckAfterMs;
    if (tally.pending > 0 && !stuck) {
      if (JSON.stringify(tally) === JSON.stringify(batch.tally)) return batch.state;
      this.#progressAt.delete(batch.id); // a change of counts is shown at once
      return (await this.#record(batch, { tally }))?.state ?? null;
    }
    this.#talliedAt.delete(batch.id);
    this.#progressAt.delete(batch.id);
    const notices: Notice[] = [
      { kind: "batch_progress", batchId: batch.id },
      { kind: "batch_done", batchId: batch.id },
    ];
    const audit = { actor: SYSTEM_ACTOR, action: "done" as const, details: { ...tally } };
    return this.#move(batch, "done", { tally, finishedAtMs: now() }, { notices, audit });
  }

  #concurrency(): number {
    return this.#options.concurrency ?? 4;
  }

  #chunk(): number {
    return this.#concurrency() * 3;
  }

  #keepLease(id: string): KeepAlive {
    return leaseKeeper(id, () => this.#renew(id), LEASE_MS / 3, this.#stopping.signal);
  }
}
