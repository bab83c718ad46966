/**
 * Views of a batch sent for approval: the card an approver decides on (after the preview
 * file), what it turns into once decided, the lines that say who decided, and what its
 * sender is told. Same rules as common.ts: `t()` escapes what came from a user or the API.
 */
import { Markup } from "telegraf";
import { rowReason } from "../../csv/batch.js";
import { BATCH_STATE_KEY } from "../../csv/batch-keys.js";
import type { Translate } from "../../i18n.js";
import type { Batch, BatchRow } from "../../model/batch.js";
import { signatureLines } from "./approval.js";
import { BATCH_CALLBACK, decisionLines, SKIPPED_SHOWN } from "./batch.js";
import { money, type Names, personName, type View } from "./common.js";
import { recurrenceText } from "./schedule.js";

/** Everyone a batch's views may name: its initiator, who decided it, who stopped it. */
export function batchPeople(batch: Batch): number[] {
  const { initiatorId, approvedBy, rejectedBy, stoppedBy } = batch;
  const signers = (batch.signatures ?? []).map((signature) => signature.userId);
  return [initiatorId, approvedBy, rejectedBy, stoppedBy, ...signers].filter(
    (id): id is number => id !== undefined,
  );
}

/** The rows a batch's approver is shown as skipped (the file has them all). */
export interface SkippedFacts {
  skipped: readonly BatchRow[];
  count: number;
  /** Who made the payouts the skipped rows repeat. */
  names?: Names;
}

/**
 * The card an approver decides a batch on (sent after its preview file): the total, the
 * rows, the skipped rows and why, who sent it and when, Approve and Reject while it waits;
 * once decided, who decided (no buttons).
 */
export function batchApprovalCard(
  t: Translate,
  batch: Batch,
  names: Names,
  facts: SkippedFacts,
): View {
  const pay = t("batch.preview_pay", {
    count: batch.payableRows ?? 0,
    total: money(t, batch.totalXaf ?? 0),
  });
  const asked = t("batch.card_asked", {
    name: personName(t, names, batch.initiatorId),
    time: t.time(batch.approvalRequestedAtMs ?? batch.updatedAtMs),
    file: batch.fileName,
    rows: batch.rowCount,
  });
  if (batch.state !== "awaiting_approval") {
    const decision = decisionLines(t, batch, names);
    const state = decision.length > 0 ? decision : [t(BATCH_STATE_KEY[batch.state])];
    return { text: [...state, "", t("batch.card_title", { id: batch.id }), pay, asked].join("\n") };
  }
  const lines = [t("batch.card_title", { id: batch.id }), "", pay];
  // A scheduled batch: the approval covers every run of its plan.
  if (batch.plan) lines.push(t("batch.preview_plan", { plan: recurrenceText(t, batch.plan) }));
  if (facts.count > 0) {
    lines.push(t("batch.preview_skip", { count: facts.count }));
    for (const row of facts.skipped.slice(0, SKIPPED_SHOWN)) {
      const reason = rowReason(t, row, facts.names ?? names);
      lines.push(t("batch.preview_skip_line", { row: row.row, reason }));
    }
    if (facts.count > SKIPPED_SHOWN) {
      lines.push(t("batch.preview_more", { count: facts.count - SKIPPED_SHOWN }));
    }
  }
  const expiresAtMs = batch.approvalExpiresAtMs ?? batch.updatedAtMs;
  lines.push("", asked, ...signatureLines(t, batch, names));
  lines.push(t("batch.card_expires", { time: t.time(expiresAtMs) }));
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(t.plain("button.approve"), BATCH_CALLBACK.approve(batch.id)),
    Markup.button.callback(t.plain("button.reject"), BATCH_CALLBACK.reject(batch.id)),
  ]).reply_markup;
  return { text: lines.join("\n"), keyboard };
}

/** What the initiator is pushed once an approver or the clock decided their batch. */
export function batchDecisionNotice(t: Translate, batch: Batch, names: Names): View {
  if (batch.approvedBy !== undefined) {
    return {
      text: t(batch.plan ? "batch.notice_scheduled" : "batch.notice_approved", {
        id: batch.id,
        approver: personName(t, names, batch.approvedBy),
        count: batch.payableRows ?? 0,
        total: money(t, batch.totalXaf ?? 0),
      }),
    };
  }
  if (batch.rejectedBy !== undefined) {
    const approver = personName(t, names, batch.rejectedBy);
    return { text: t("batch.notice_rejected", { id: batch.id, approver }) };
  }
  return { text: t("batch.notice_expired", { id: batch.id }) };
}
