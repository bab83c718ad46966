/**
 * Scheduled batches (payroll): a batch file sent with the caption `/schedule WHEN` is read,
 * checked and previewed exactly as any batch (batch/*), with its plan. Its Confirm (or its
 * approval as one, on the batch's four-eyes rules) makes a schedule of its payable rows
 * (`activate`): the rows are kept with the schedule, once, for every run. At each run time
 * the scheduler makes that run's batch (`startRun`), id `{scheduleId}-{runKey}`, from the
 * rows as confirmed, each expecting the name registered at the preview; the batch worker
 * checks them again (names, operators, recent payouts) and pays them with every guard of a
 * batch's rows (the owner's role and the daily caps in each claim, claim-then-send), and
 * the owner gets its summary. The schedule's Confirm covers the run: no preview, no Confirm.
 */
import { type Actor, SYSTEM_ACTOR } from "../../model/audit.js";
import type { Batch, BatchRow } from "../../model/batch.js";
import {
  type RunState,
  runBatchId,
  SCHEDULE_MOVES,
  type Schedule,
  type ScheduledRow,
  type ScheduleRun,
} from "../../model/schedule.js";
import { isPayable } from "../batch/checks.js";
import { allRows } from "../batch/rows.js";
import type { StepContext } from "../types.js";
import { scheduleAudit } from "./audit.js";
import type { RunOutcome } from "./runs.js";
import type { Schedules } from "./schedules.js";

/** What making the schedule of a confirmed (or approved) scheduled batch came to. */
export type ActivateResult =
  | { outcome: "done"; schedule: Schedule }
  /** No payable row, or no run left (a date passed since the preview): nothing scheduled. */
  | { outcome: "no_runs" }
  | { outcome: "nothing_to_pay" };

export class BatchSchedules {
  readonly #context: StepContext;
  readonly #schedules: Schedules;
  readonly #onBatchWork: () => void;

  constructor(context: StepContext, schedules: Schedules, onBatchWork: () => void = () => {}) {
    this.#context = context;
    this.#schedules = schedules;
    this.#onBatchWork = onBatchWork;
  }

  /** The next `count` run times of a scheduled batch's plan, after now. */
  nextRuns(batch: Batch, count = 3) {
    return batch.plan ? this.#schedules.nextRuns(batch.plan, count) : [];
  }

  /**
   * Makes the schedule of `batch` (a scheduled batch its initiator confirmed, and an
   * approver approved when it needed one; the batch already moved to `scheduled`): its
   * payable rows kept with it, active from its first run after now. Its id is the batch's,
   * so a second call (a retry after a crash in between) finds it and only activates it.
   */
  async activate(batch: Batch, actor: Actor, approvedBy?: number): Promise<ActivateResult> {
    const { stores, now } = this.#context;
    if (!batch.plan) return { outcome: "no_runs" };
    const nowMs = now();
    const [next] = this.#schedules.nextRuns(batch.plan, 1, nowMs);
    const rows = (await allRows(stores, batch.id)).flatMap(scheduledRow);
    const [first] = rows;
    if (!first) return { outcome: "nothing_to_pay" };
    const schedule: Schedule = {
      id: batch.id,
      state: "awaiting_confirmation",
      recurrence: batch.plan,
      phone: first.phone,
      operator: first.operator,
      recipientName: first.name,
      amount: rows.reduce((sum, row) => sum + row.amount, 0),
      batch: { sourceId: batch.id, fileName: batch.fileName, rowCount: rows.length },
      ownerId: batch.initiatorId,
      ownerRole: batch.initiatorRole,
      chatId: batch.chatId,
      locale: batch.locale,
      createdAtMs: batch.createdAtMs,
      updatedAtMs: nowMs,
      expiresAtMs: nowMs + this.#schedules.settings.confirmationTtlMs,
      runCount: 0,
    };
    const owner: Actor = { id: batch.initiatorId, role: batch.initiatorRole };
    const details = { batchId: batch.id, rows: rows.length };
    await stores.schedules.create(
      schedule,
      scheduleAudit(schedule, "prompt", owner, nowMs, details),
      rows,
    );
    const step = approvedBy === undefined ? "confirm" : "approve";
    if (!next) {
      await stores.schedules.move(schedule.id, SCHEDULE_MOVES.expire.from, "expired", {});
      return { outcome: "no_runs" };
    }
    const moved = await stores.schedules.move(
      schedule.id,
      ["awaiting_confirmation"],
      "active",
      {
        nextRunAtMs: next.atMs,
        nextRunKey: next.key,
        ...(approvedBy === undefined ? {} : { approvedBy }),
      },
      { audit: scheduleAudit(schedule, step, actor, nowMs, { ...details, nextRun: next.key }) },
    );
    if (moved.ok) return { outcome: "done", schedule: moved.schedule };
    // Made before (a Confirm retried after a crash): as it stands, if it was ever active.
    const current = await stores.schedules.get(schedule.id);
    const made = current && ["active", "paused", "finished"].includes(current.state);
    return made ? { outcome: "done", schedule: current } : { outcome: "no_runs" };
  }

  /**
   * A run of a scheduled batch: recorded `sending` (compare-and-set from `from`, while its
   * schedule is active: a Skip, Pause or Delete that came first wins), its batch made (or
   * found: made before a crash, or by another replica) with the rows as confirmed, then the
   * run recorded sent. The batch worker does the rest, as for any confirmed batch.
   */
  async startRun(
    schedule: Schedule,
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
  ): Promise<RunOutcome> {
    const { stores, now, log } = this.#context;
    const batchId = runBatchId(schedule.id, run.key);
    if (!from.includes("sending")) {
      const sending = await stores.schedules.writeRun(
        { ...run, state: "sending", batchId, updatedAtMs: now() },
        from,
        { scheduleIn: ["active"] },
      );
      if (!sending.ok) return "already";
    }
    const rows = await stores.schedules.rows(schedule.id);
    const nowMs = now();
    const batch: Batch = {
      id: batchId,
      state: "checking",
      initiatorId: schedule.ownerId,
      initiatorRole: schedule.ownerRole,
      chatId: schedule.chatId,
      locale: schedule.locale,
      fileName: schedule.batch?.fileName ?? schedule.id,
      rowCount: rows.length,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      checkedRows: 0,
      doneRows: 0,
      run: { scheduleId: schedule.id, runKey: run.key },
    };
    // Made by the bot (audited as such); its rows' payouts are its owner's, as any batch's.
    const created = await stores.batches.create(batch, rows.map(runRow), SYSTEM_ACTOR);
    const sent: ScheduleRun = { ...run, state: "sent", batchId, updatedAtMs: now() };
    const details = { runKey: run.key, batchId, rows: rows.length };
    await stores.schedules.writeRun(sent, ["sending"], {
      audit: scheduleAudit(schedule, "run_sent", SYSTEM_ACTOR, now(), details),
    });
    log.info({ scheduleId: schedule.id, runKey: run.key, batchId, created }, "batch run started");
    this.#onBatchWork();
    return "sent";
  }
}

/** A payable row of the preview, as kept with the schedule; [] for the others. */
function scheduledRow(row: BatchRow): ScheduledRow[] {
  if (!isPayable(row)) return [];
  return [
    {
      row: row.row,
      phone: row.phone,
      operator: row.operator,
      name: row.name ?? row.expectedName ?? "",
      amount: row.amount,
      ...(row.note ? { note: row.note } : {}),
    },
  ];
}

/**
 * A kept row as a row of the run's batch, to be checked again: its name looked up (another
 * one now: not paid, `name_mismatch`, reported in the run's summary).
 */
function runRow(row: ScheduledRow): BatchRow {
  return {
    row: row.row,
    phoneText: row.phone,
    amountText: String(row.amount),
    phone: row.phone,
    operator: row.operator,
    amount: row.amount,
    ...(row.note ? { note: row.note } : {}),
    ...(row.name === "" ? {} : { expectedName: row.name }),
  };
}
