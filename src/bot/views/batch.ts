/**
 * Views of batch payouts: the progress message (checks, then payments), the preview, the
 * summary, /batches and /batch. Same rules as common.ts: `t()` escapes what came from a
 * user or the API (the file's name, registered names).
 */

import { Markup } from "telegraf";
import { rowReason } from "../../csv/batch.js";
import { BATCH_STATE_KEY } from "../../csv/batch-keys.js";
import type { Translate } from "../../i18n.js";
import { type Batch, type BatchRow, type BatchTally, emptyTally } from "../../model/batch.js";
import { money, type Names, personName, type View } from "./common.js";
import { recurrenceText, runTimeText } from "./schedule.js";

/** What an approver decided (or that nobody did in time); nothing before that. */
export function decisionLines(t: Translate, batch: Batch, names: Names): string[] {
  const time = t.time(batch.decidedAtMs ?? batch.updatedAtMs);
  if (batch.approvedBy !== undefined) {
    return [t("batch.approved_by", { name: personName(t, names, batch.approvedBy), time })];
  }
  if (batch.rejectedBy !== undefined) {
    return [t("batch.rejected_by", { name: personName(t, names, batch.rejectedBy), time })];
  }
  if (batch.state === "cancelled" && batch.approvalExpiresAtMs !== undefined) {
    return [t("batch.approval_expired", { time: t.time(batch.approvalExpiresAtMs) })];
  }
  return [];
}

export const BATCH_CALLBACK = {
  confirm: (id: string) => `bc:${id}`,
  include: (id: string) => `bi:${id}`,
  cancel: (id: string) => `bx:${id}`,
  stop: (id: string) => `bs:${id}`,
  approve: (id: string) => `ba:${id}`,
  reject: (id: string) => `br:${id}`,
};

/** Ids of 6 to 24 characters: an upload's (8), or a scheduled batch's run (`{id}-{runKey}`, 21). */
export const BATCH_CALLBACK_PATTERN = {
  confirm: /^bc:([\w-]{6,24})$/,
  include: /^bi:([\w-]{6,24})$/,
  cancel: /^bx:([\w-]{6,24})$/,
  stop: /^bs:([\w-]{6,24})$/,
  approve: /^ba:([\w-]{6,24})$/,
  reject: /^br:([\w-]{6,24})$/,
};

/** Rows of the preview's skipped list shown in the message; the file has them all. */
export const SKIPPED_SHOWN = 10;
const BAR_CELLS = 10;

function bar(done: number, total: number): string {
  const filled = total === 0 ? BAR_CELLS : Math.round((done / total) * BAR_CELLS);
  return "▓".repeat(filled) + "░".repeat(BAR_CELLS - filled);
}

function duration(t: Translate, ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  if (minutes < 60) return t.plain("batch.minutes", { minutes });
  return t.plain("batch.hours", { hours: Math.floor(minutes / 60), minutes: minutes % 60 });
}

/** Who stopped it, when someone did. */
function stoppedLines(t: Translate, batch: Batch, names: Names): string[] {
  if (batch.stoppedBy === undefined) return [];
  return [t("batch.stopped_by", { name: personName(t, names, batch.stoppedBy) })];
}

/** The progress message: where the checks or the payments are, and the rows' outcomes. */
export function progressView(t: Translate, batch: Batch, nowMs: number, names: Names): View {
  const lines: string[] = [];
  if (batch.state === "scheduled") {
    // Its rows became a schedule: each run is a batch of its own (/schedules lists it).
    const total = money(t, batch.totalXaf ?? 0);
    lines.push(t("batch.scheduled", { id: batch.id, count: batch.payableRows ?? 0, total }));
  } else if (batch.state === "checking") {
    lines.push(
      t("batch.checking_title", { id: batch.id, file: batch.fileName, count: batch.rowCount }),
    );
    lines.push(progressLine(t, batch.checkedRows, batch.rowCount));
    const elapsedMs = nowMs - (batch.checkStartedAtMs ?? nowMs);
    if (batch.checkedRows > 0 && elapsedMs > 0) {
      const perMinute = (batch.checkedRows / elapsedMs) * 60_000;
      const leftMs = ((batch.rowCount - batch.checkedRows) / perMinute) * 60_000;
      lines.push(t("batch.speed", { rate: Math.round(perMinute), left: duration(t, leftMs) }));
    }
  } else if (batch.approvalExpiresAtMs !== undefined && !isPaid(batch)) {
    // Sent for approval, and not (yet) paid: what waits, or waited.
    const total = money(t, batch.totalXaf ?? 0);
    lines.push(t("batch.waiting_title", { id: batch.id, count: batch.payableRows ?? 0, total }));
    if (batch.state === "awaiting_approval") {
      const time = t.time(batch.approvalExpiresAtMs ?? batch.updatedAtMs);
      lines.push(t("batch.waiting_until", { time }));
    }
  } else {
    lines.push(t("batch.running_title", { id: batch.id, count: batch.payableRows ?? 0 }));
    if (batch.state === "running") lines.push(progressLine(t, batch.doneRows, batch.rowCount));
    if (batch.tally) lines.push(countsLine(t, batch.tally));
  }
  lines.push(t(BATCH_STATE_KEY[batch.state]), ...decisionLines(t, batch, names));
  lines.push(...stoppedLines(t, batch, names));
  const keyboard =
    batch.state === "running"
      ? Markup.inlineKeyboard([
          Markup.button.callback(t.plain("batch.button_stop"), BATCH_CALLBACK.stop(batch.id)),
        ]).reply_markup
      : undefined;
  return { text: lines.join("\n"), ...(keyboard ? { keyboard } : {}) };
}

/** Whether the batch went on to be paid (it was confirmed, or approved). */
function isPaid(batch: Batch): boolean {
  return batch.state === "running" || batch.state === "sent" || batch.state === "done";
}

function progressLine(t: Translate, done: number, total: number): string {
  return t("batch.progress_line", { bar: bar(done, total), done, total });
}

export interface PreviewFacts {
  skipped: BatchRow[];
  skippedCount: number;
  /** Skipped rows that repeat a recent payout: the payer may include them. */
  repeatCount: number;
  /** Who made the payouts the rows repeat. */
  names: Names;
  /** An earlier batch of the very same file. */
  sameFile?: Batch;
  /** Estimated fees, when recent payouts tell the rate. */
  feesXaf?: number;
  /** What is left today under the payer's caps, when one applies. */
  leftXaf?: number;
  approvalThresholdXaf?: number;
  /** APPROVAL_RULES: the band of the batch's total, when it needs several signatures. */
  signaturesNeeded?: number;
  /** A scheduled batch's next run times (its plan is the batch's). */
  runs?: ReadonlyArray<{ atMs: number }>;
}

/** The preview: what will be paid, what will not and why, the rules that apply. */
export function previewView(t: Translate, batch: Batch, facts: PreviewFacts): View {
  const payable = batch.payableRows ?? 0;
  const total = batch.totalXaf ?? 0;
  const lines: string[] = [];
  if (facts.sameFile) {
    const { id, initiatorId } = facts.sameFile;
    lines.push(t("batch.preview_same_file", { id, name: personName(t, facts.names, initiatorId) }));
  }
  lines.push(t("batch.preview_title", { id: batch.id, file: batch.fileName }));
  if (batch.plan) {
    lines.push(t("batch.preview_plan", { plan: recurrenceText(t, batch.plan) }));
    const runs = facts.runs ?? [];
    if (runs.length > 0) {
      lines.push(t(runs.length > 1 ? "schedule.next_runs" : "schedule.only_run"));
      lines.push(...runs.map((run) => `• ${runTimeText(t, run.atMs)}`));
    }
  }
  if (payable > 0) {
    lines.push(t("batch.preview_pay", { count: payable, total: money(t, total) }));
    lines.push(
      facts.feesXaf === undefined
        ? t("batch.preview_fees_unknown")
        : t("batch.preview_fees", { fees: money(t, facts.feesXaf) }),
    );
  }
  if (facts.skippedCount > 0) {
    lines.push(t("batch.preview_skip", { count: facts.skippedCount }));
    for (const row of facts.skipped.slice(0, SKIPPED_SHOWN)) {
      const reason = rowReason(t, row, facts.names);
      lines.push(t("batch.preview_skip_line", { row: row.row, reason }));
    }
    if (facts.skippedCount > SKIPPED_SHOWN) {
      lines.push(t("batch.preview_more", { count: facts.skippedCount - SKIPPED_SHOWN }));
    }
  }
  const include =
    facts.repeatCount > 0
      ? [
          Markup.button.callback(
            t.plain("batch.button_include", { count: facts.repeatCount }),
            BATCH_CALLBACK.include(batch.id),
          ),
        ]
      : [];
  if (facts.repeatCount > 0) lines.push(t("batch.preview_repeats", { count: facts.repeatCount }));
  if (payable === 0) {
    lines.push(t("batch.preview_nothing"));
    const keyboard = include.length > 0 ? Markup.inlineKeyboard([include]).reply_markup : undefined;
    return { text: lines.join("\n"), ...(keyboard ? { keyboard } : {}) };
  }
  if (facts.leftXaf !== undefined) {
    const key = facts.leftXaf < total ? "batch.preview_over_limit" : "batch.preview_limit";
    lines.push(t(key, { left: money(t, facts.leftXaf) }));
  }
  if (facts.approvalThresholdXaf !== undefined && total >= facts.approvalThresholdXaf) {
    const threshold = money(t, facts.approvalThresholdXaf);
    const needed = facts.signaturesNeeded ?? 1;
    lines.push(
      needed > 1
        ? t("batch.preview_signatures", { threshold, needed })
        : t("batch.preview_approval", { threshold }),
    );
  }
  lines.push(t("batch.preview_expires", { time: t.time(batch.expiresAtMs ?? batch.updatedAtMs) }));
  const keyboard = Markup.inlineKeyboard([
    [
      Markup.button.callback(t.plain("batch.button_confirm"), BATCH_CALLBACK.confirm(batch.id)),
      Markup.button.callback(t.plain("batch.button_cancel"), BATCH_CALLBACK.cancel(batch.id)),
    ],
    ...(include.length > 0 ? [include] : []),
  ]).reply_markup;
  return { text: lines.join("\n"), keyboard };
}

function countsLine(t: Translate, tally: BatchTally): string {
  const { paid, failed, pending, unknown, skipped } = tally;
  return t("batch.counts", { paid, failed, pending, unknown, skipped });
}

/** The summary sent with the results file, from the batch's last count. */
export function summaryText(t: Translate, batch: Batch, names: Names, stuckHours: number): string {
  const tally = batch.tally ?? emptyTally();
  const run = batch.run
    ? [t("batch.run_of", { ref: batch.run.scheduleId, time: t.time(batch.createdAtMs) })]
    : [];
  const lines = [
    ...run,
    tally.pending > 0
      ? t("batch.summary_stuck", { id: batch.id, hours: stuckHours })
      : t("batch.summary_title", { id: batch.id }),
    t("batch.summary_paid", {
      count: tally.paid,
      total: money(t, tally.paidXaf),
      fees: money(t, tally.feesXaf),
    }),
    countsLine(t, tally),
    ...stoppedLines(t, batch, names),
  ];
  if (tally.pending > 0 || tally.unknown > 0) lines.push(t("batch.summary_attention"));
  lines.push(t("batch.summary_file"));
  return lines.join("\n");
}

/** /batches: one line per batch. */
export function batchListText(t: Translate, batches: readonly Batch[]): string {
  if (batches.length === 0) return t("batch.list_empty");
  const lines = batches.map((batch) =>
    t("batch.list_line", {
      id: batch.id,
      time: t.time(batch.createdAtMs),
      rows: batch.rowCount,
      state: t.plain(BATCH_STATE_KEY[batch.state]),
    }),
  );
  return [t("batch.list_title"), ...lines].join("\n");
}

/** /batch ID: the progress view, with where the file came from and who sent it. */
export function batchDetailView(t: Translate, batch: Batch, names: Names, nowMs: number): View {
  const view = progressView(t, batch, nowMs, names);
  const file = t("batch.detail_file", {
    file: batch.fileName,
    rows: batch.rowCount,
    time: t.time(batch.createdAtMs),
    name: personName(t, names, batch.initiatorId),
  });
  return { ...view, text: `${view.text}\n${file}` };
}
