/**
 * What batches tell their payer after the fact, through the notifier: the progress message
 * edited, the preview (with its file and buttons), the summary (with the results file),
 * and the preview closed once decided. Each written from the batch as it is now.
 */

import type { Telegram } from "telegraf";
import { Input } from "telegraf";
import { translator } from "../i18n.js";
import type { Logger } from "../logger.js";
import type { Batch, BatchRow } from "../model/batch.js";
import type { BatchNoticeKind } from "../model/notice.js";
import type { Payout } from "../model/payout.js";
import { rowStanding } from "../payouts/batch-rows.js";
import type { Limits } from "../payouts/limits.js";
import { writePreview, writeResults } from "../reports/batch-csv.js";
import { BATCH_STATE_KEY, ROW_OUTCOME_KEY } from "../reports/batch-keys.js";
import type { Stores } from "../store/types.js";
import { previewView, progressView, summaryText } from "./batch-views.js";
import { editMessageView, sendView } from "./reply.js";
import { toDeliveryError } from "./telegram-failure.js";

export interface BatchDeliveryOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
  limits?: Limits;
  approvalThresholdXaf?: number;
  stuckAfterHours: number;
  now?: () => number;
}

/** Recent payouts read to estimate a batch's fees. */
const FEE_SAMPLE = 50;

export class BatchDeliveries {
  readonly #options: BatchDeliveryOptions;

  constructor(options: BatchDeliveryOptions) {
    this.#options = options;
  }

  async deliver(kind: BatchNoticeKind, batch: Batch): Promise<void> {
    try {
      switch (kind) {
        case "batch_progress":
          return await this.#progress(batch);
        case "batch_preview":
          return await this.#preview(batch);
        case "batch_done":
          return await this.#done(batch);
        case "batch_decided":
          return await this.#closePreview(batch);
        default:
          this.#options.logger.warn({ batchId: batch.id, kind }, "batch notice not delivered");
      }
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  #t(batch: Batch) {
    return translator(batch.locale, this.#options.timeZone);
  }

  async #progress(batch: Batch): Promise<void> {
    if (batch.progressMessageId === undefined) return;
    const view = progressView(this.#t(batch), batch, (this.#options.now ?? Date.now)());
    await editMessageView(this.#options.telegram, batch.chatId, batch.progressMessageId, view);
  }

  async #preview(batch: Batch): Promise<void> {
    if (batch.state !== "ready") return;
    const { telegram, stores } = this.#options;
    const t = this.#t(batch);
    const skipped: BatchRow[] = [];
    for await (const page of rowPages(stores, batch.id)) {
      skipped.push(...page.filter((row) => row.problem !== undefined));
    }
    const file = await writePreview(batch, t, rowPages(stores, batch.id));
    try {
      await telegram.sendDocument(batch.chatId, Input.fromLocalFile(file.path, fileNameOf(file)));
    } finally {
      await file.discard();
    }
    const facts = {
      skipped,
      skippedCount: skipped.length,
      ...(await this.#feeEstimate(batch.totalXaf ?? 0)),
      ...(await this.#left(batch)),
      ...(this.#options.approvalThresholdXaf !== undefined
        ? { approvalThresholdXaf: this.#options.approvalThresholdXaf }
        : {}),
    };
    const sent = await sendView(telegram, batch.chatId, previewView(t, batch, facts));
    await stores.batches.update(batch.id, { previewMessageId: sent.message_id });
  }

  /** Fees at the rate of the latest payouts that paid a fee; none known: no estimate. */
  async #feeEstimate(totalXaf: number): Promise<{ feesXaf?: number }> {
    const recent = await this.#options.stores.payouts.list({ offset: 0, limit: FEE_SAMPLE });
    let amounts = 0;
    let fees = 0;
    for (const payout of recent.items) {
      if (
        payout.kind === "disbursement" &&
        payout.state === "success" &&
        payout.fee !== undefined
      ) {
        amounts += payout.amount;
        fees += payout.fee;
      }
    }
    return amounts > 0 ? { feesXaf: Math.ceil((totalXaf * fees) / amounts) } : {};
  }

  /** What is left today under the caps that apply to the batch's payer. */
  async #left(batch: Batch): Promise<{ leftXaf?: number }> {
    const { limits } = this.#options;
    if (!limits) return {};
    const over = await limits.check("disbursement", batch.initiatorId, batch.totalXaf ?? 0);
    if (over) return { leftXaf: over.leftXaf };
    const report = await limits.report();
    const lefts = [
      report.payerCapXaf === undefined
        ? undefined
        : report.payerCapXaf - (report.byUser.get(batch.initiatorId) ?? 0),
      report.merchantCapXaf === undefined
        ? undefined
        : report.merchantCapXaf - report.merchantUsedXaf,
    ].filter((left): left is number => left !== undefined);
    return lefts.length > 0 ? { leftXaf: Math.max(0, Math.min(...lefts)) } : {};
  }

  async #done(batch: Batch): Promise<void> {
    const { telegram, stores, stuckAfterHours } = this.#options;
    const t = this.#t(batch);
    const paid = { totalXaf: 0, feesXaf: 0 };
    const standing = (payout: Payout | null) => {
      const where = rowStanding(payout);
      if (where === "paid" && payout) {
        paid.totalXaf += payout.amount;
        paid.feesXaf += payout.fee ?? 0;
      }
      return t.plain(ROW_OUTCOME_KEY[where]);
    };
    const file = await writeResults(batch, t, rowPages(stores, batch.id), stores.payouts, standing);
    try {
      await telegram.sendDocument(batch.chatId, Input.fromLocalFile(file.path, fileNameOf(file)));
    } finally {
      await file.discard();
    }
    await sendView(telegram, batch.chatId, {
      text: summaryText(t, batch, paid, stuckAfterHours),
    });
  }

  /** The preview's buttons are taken away once it was decided (cancelled, expired). */
  async #closePreview(batch: Batch): Promise<void> {
    if (batch.previewMessageId === undefined) return;
    const t = this.#t(batch);
    const view = { text: t(BATCH_STATE_KEY[batch.state]) };
    await editMessageView(this.#options.telegram, batch.chatId, batch.previewMessageId, view).catch(
      (error: unknown) => this.#options.logger.debug({ err: error }, "could not close a preview"),
    );
  }
}

async function* rowPages(stores: Stores, batchId: string): AsyncGenerator<BatchRow[]> {
  for (let from = 0; ; from += 200) {
    const page = await stores.batches.rows(batchId, from, 200);
    if (page.length > 0) yield page;
    if (page.length < 200) return;
  }
}

function fileNameOf(file: { path: string }): string {
  return file.path.split("/").pop() ?? "batch-file.csv";
}
