/**
 * What batches tell their payer after the fact, through the notifier: the progress message
 * edited, the preview (with its file and buttons), the summary (with the results file),
 * and the preview closed once decided; a batch sent for approval: each approver's card
 * (after the preview file, in the approver's language), edited once someone (or the clock)
 * decided, and its initiator told. Each written from the batch as it is now.
 */

import type { Telegram } from "telegraf";
import { Input } from "telegraf";
import { type RowResult, writePreview, writeResults } from "../../csv/batch.js";
import { BATCH_STATE_KEY } from "../../csv/batch-keys.js";
import { translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import { type ApprovalBand, bandOf } from "../../model/approval-rules.js";
import type { Batch, BatchRow } from "../../model/batch.js";
import type { BatchNoticeKind } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import { rowPages, rowStanding, rowsWithPayouts } from "../../payouts/batch/rows.js";
import type { Limits } from "../../payouts/limits.js";
import { decidersOf } from "../../payouts/policy.js";
import { runsAfter } from "../../payouts/schedule/when.js";
import type { Stores } from "../../store/types.js";
import { toDeliveryError } from "../telegram/failures.js";
import { editMessageView, sendView } from "../telegram/reply.js";
import { previewView, progressView, summaryText } from "../views/batch.js";
import { batchApprovalCard, batchDecisionNotice, batchPeople } from "../views/batch-approval.js";
import type { Names } from "../views/common.js";
import { type StepUpSettings, withPinBatch } from "../views/step-up.js";
import { namesOf, translatorFor } from "./people.js";

export interface BatchDeliveryOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
  limits?: Limits;
  approvalThresholdXaf?: number;
  /** APPROVAL_RULES: the preview says how many sign a batch of its total. */
  approvalBands?: readonly ApprovalBand[] | undefined;
  stuckAfterHours: number;
  /** STEP_UP_THRESHOLD_XAF and WEBAPP_URL: a big batch's Confirm and Approve open the Mini App. */
  stepUp?: StepUpSettings | undefined;
  now?: () => number;
}

/** Recent batches (everyone's) looked at for the same file sent again. */
const SAME_FILE_LOOKBACK = 20;

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
        case "batch_approval_requested":
          return await this.#sendCards(batch);
        case "batch_approval_decided":
          return await this.#approvalDecided(batch);
        case "batch_approval_signed":
          return await this.#showSignatures(batch);
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

  /** Every staff member's name: who made the payouts a batch's rows repeat. */
  async #staffNames(): Promise<Names> {
    const staff = await this.#options.stores.staff.list();
    return namesOf(
      this.#options.stores.profiles,
      staff.map((member) => member.userId),
    );
  }

  /** An earlier batch of the very same file, when the payer (or anyone) sent it lately. */
  async #sameFile(batch: Batch): Promise<Batch | undefined> {
    if (batch.fileSha256 === undefined) return undefined;
    const recent = await this.#options.stores.batches.list({ limit: SAME_FILE_LOOKBACK });
    return recent.find(
      (other) =>
        other.id !== batch.id &&
        other.fileSha256 === batch.fileSha256 &&
        other.createdAtMs < batch.createdAtMs &&
        other.state !== "cancelled",
    );
  }

  /** The names of whoever decided or stopped the batch, when someone did. */
  #names(batch: Batch): Promise<Names> {
    return namesOf(this.#options.stores.profiles, batchPeople(batch));
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  async #progress(batch: Batch): Promise<void> {
    if (batch.progressMessageId === undefined) return;
    const now = this.#now();
    const view = progressView(this.#t(batch), batch, now, await this.#names(batch));
    await editMessageView(this.#options.telegram, batch.chatId, batch.progressMessageId, view);
  }

  async #preview(batch: Batch): Promise<void> {
    if (batch.state !== "ready") return;
    const { telegram, stores, limits, approvalThresholdXaf } = this.#options;
    const t = this.#t(batch);
    // One pass over the rows: the file is written and the skipped ones kept on the way.
    const skipped: BatchRow[] = [];
    const names = await this.#staffNames();
    const pages = keepSkipped(rowPages(stores, batch.id), skipped);
    const file = await writePreview(batch, t, pages, names);
    try {
      await telegram.sendDocument(batch.chatId, Input.fromLocalFile(file.path, fileNameOf(file)));
    } finally {
      await file.discard();
    }
    const leftXaf = await limits?.left(batch.initiatorId);
    const sameFile = await this.#sameFile(batch);
    const facts = {
      skipped,
      skippedCount: skipped.length,
      repeatCount: skipped.filter((row) => row.problem === "recent_duplicate").length,
      names,
      ...(sameFile ? { sameFile } : {}),
      ...(await this.#feeEstimate(batch.totalXaf ?? 0)),
      ...(leftXaf === undefined ? {} : { leftXaf }),
      ...(approvalThresholdXaf === undefined ? {} : { approvalThresholdXaf }),
      signaturesNeeded:
        bandOf(this.#options.approvalBands ?? [], batch.totalXaf ?? 0)?.signatures ?? 1,
      ...(batch.plan
        ? { runs: runsAfter(batch.plan, this.#options.timeZone, this.#now(), 3) }
        : {}),
    };
    const preview = previewView(t, batch, facts);
    const { stepUp } = this.#options;
    // A scheduled batch's PIN is typed once, at its Confirm, for every run.
    const view = withPinBatch(t, preview, batch, "batch-confirm", stepUp, batch.chatId > 0);
    const sent = await sendView(telegram, batch.chatId, view);
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

  /** The results file, then the summary (its figures are the batch's last count). */
  async #done(batch: Batch): Promise<void> {
    const { telegram, stores, stuckAfterHours } = this.#options;
    const t = this.#t(batch);
    const rows = withStanding(rowsWithPayouts(stores, batch.id));
    const file = await writeResults(batch, t, rows, await this.#staffNames());
    try {
      await telegram.sendDocument(batch.chatId, Input.fromLocalFile(file.path, fileNameOf(file)));
    } finally {
      await file.discard();
    }
    const names = await this.#names(batch);
    await sendView(telegram, batch.chatId, { text: summaryText(t, batch, names, stuckAfterHours) });
  }

  /**
   * The preview file and a card to every approver and admin but the initiator, each card
   * remembered. Those who have one already (a retry) are skipped; one who blocked the bot
   * is logged and skipped; any other failure is thrown once the rest were tried.
   */
  async #sendCards(batch: Batch): Promise<void> {
    const { stores, telegram, logger, timeZone } = this.#options;
    if (batch.state !== "awaiting_approval") return;
    const approvers = decidersOf(await stores.staff.list(), batch);
    const key = batchCardsKey(batch.id);
    const done = new Set((await stores.cards.list(key)).map((card) => card.chatId));
    const names = await this.#staffNames();
    let retry: Error | undefined;
    for (const { userId } of approvers) {
      if (done.has(userId)) continue;
      const t = await translatorFor(stores, userId, timeZone);
      try {
        const skipped: BatchRow[] = [];
        const pages = keepSkipped(rowPages(stores, batch.id), skipped);
        const file = await writePreview(batch, t, pages, names);
        try {
          const document = Input.fromLocalFile(file.path, fileNameOf(file));
          await telegram.sendDocument(userId, document);
        } finally {
          await file.discard();
        }
        const facts = { skipped, count: skipped.length, names };
        const card = batchApprovalCard(t, batch, names, facts);
        const view = withPinBatch(t, card, batch, "batch-approve", this.#options.stepUp, true);
        const sent = await sendView(telegram, userId, view);
        await stores.cards.add(key, { chatId: userId, messageId: sent.message_id });
      } catch (error) {
        const failure = toDeliveryError(error);
        logger.warn({ err: error, batchId: batch.id, chatId: userId }, "could not send a card");
        if (!failure.permanent) retry = failure;
      }
    }
    if (retry) throw retry;
  }

  /**
   * Every card shows the decision (but the decider's, edited by their press), and the
   * initiator is told what came of their batch.
   */
  async #approvalDecided(batch: Batch): Promise<void> {
    const { stores, telegram, logger, timeZone } = this.#options;
    if (batch.state === "awaiting_approval") return;
    const names = await namesOf(stores.profiles, batchPeople(batch));
    const decider = batch.approvedBy ?? batch.rejectedBy;
    for (const card of await stores.cards.list(batchCardsKey(batch.id))) {
      if (card.chatId === decider) continue;
      const t = await translatorFor(stores, card.chatId, timeZone);
      const view = batchApprovalCard(t, batch, names, { skipped: [], count: 0 });
      await editMessageView(telegram, card.chatId, card.messageId, view).catch((error: unknown) =>
        logger.debug({ err: error, batchId: batch.id }, "could not edit a batch card"),
      );
    }
    await sendView(telegram, batch.chatId, batchDecisionNotice(this.#t(batch), batch, names));
  }

  /**
   * A signature short of the rule (APPROVAL_RULES): every card, redrawn with the skipped
   * rows it showed, says who signed and when. Best effort.
   */
  async #showSignatures(batch: Batch): Promise<void> {
    const { stores, telegram, logger, timeZone } = this.#options;
    if (batch.state !== "awaiting_approval") return;
    const skipped: BatchRow[] = [];
    for await (const page of rowPages(stores, batch.id)) {
      skipped.push(...page.filter((row) => row.problem !== undefined));
    }
    const names = await this.#staffNames();
    const facts = { skipped, count: skipped.length, names };
    for (const card of await stores.cards.list(batchCardsKey(batch.id))) {
      const t = await translatorFor(stores, card.chatId, timeZone);
      const view = withPinBatch(
        t,
        batchApprovalCard(t, batch, names, facts),
        batch,
        "batch-approve",
        this.#options.stepUp,
        true,
      );
      await editMessageView(telegram, card.chatId, card.messageId, view).catch((error: unknown) =>
        logger.debug({ err: error, batchId: batch.id }, "could not edit a batch card"),
      );
    }
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

/** The pages as they are, keeping the rows with a problem in `skipped` on the way. */
async function* keepSkipped(
  pages: AsyncIterable<BatchRow[]>,
  skipped: BatchRow[],
): AsyncGenerator<BatchRow[]> {
  for await (const page of pages) {
    skipped.push(...page.filter((row) => row.problem !== undefined));
    yield page;
  }
}

/** Each row with how it stands (a row with a problem was not paid). */
async function* withStanding(
  pages: AsyncIterable<Array<{ row: BatchRow; payout: Payout | null }>>,
): AsyncGenerator<RowResult[]> {
  for await (const page of pages) {
    yield page.map(({ row, payout }) => ({
      row,
      payout,
      standing: row.problem === undefined ? rowStanding(payout) : "skipped",
    }));
  }
}

function fileNameOf(file: { path: string }): string {
  return file.path.split("/").pop() ?? "batch-file.csv";
}

/** Where a batch's approval cards are remembered (beside payouts' cards, which never hold ":"). */
export function batchCardsKey(batchId: string): string {
  return `batch:${batchId}`;
}
