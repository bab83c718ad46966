/**
 * Views of four-eyes approval: the card an approver decides on (and what it turns into
 * once someone did), the payer's prompt while it waits and once it was decided, and the
 * payer's notices. People are named by the first name Telegram gave them, else by id.
 * Same rules as common.ts: everything from a user or the API is escaped by `t()`.
 */

import { Markup } from "telegraf";
import { html, type Translate } from "../../i18n.js";
import { isInFlight } from "../../model/lifecycle.js";
import type { Payout } from "../../model/payout.js";
import {
  CALLBACK,
  money,
  type Names,
  payoutDetails,
  payoutStateView,
  personName,
  STATE_TITLE,
  type View,
} from "./common.js";
import { duplicateWarning } from "./pay.js";
import { aliasPromptNotes } from "./recipients.js";

/** What was decided and by whom, when it was (approved, rejected, expired); else nothing. */
function decisionLines(t: Translate, payout: Payout, names: Names): string[] {
  const at = t.time(payout.decidedAtMs ?? payout.updatedAtMs);
  if (payout.approvedBy !== undefined) {
    const name = personName(t, names, payout.approvedBy);
    const lines = [t("approval.approved_by", { name, time: at })];
    // The signatures before the last one, when its rule needed several.
    const signatures = payout.signatures ?? [];
    if (signatures.length > 1)
      lines.push(t("approval.signed_by", { signers: signerList(t, signatures, names) }));
    return lines;
  }
  if (payout.state === "rejected" && payout.rejectedBy !== undefined) {
    const name = personName(t, names, payout.rejectedBy);
    const lines = [t("approval.rejected_by", { name, time: at })];
    if (payout.rejectionReason)
      lines.push(t("approval.reason", { reason: payout.rejectionReason }));
    return lines;
  }
  if (payout.state === "cancelled" && payout.cancelledBy !== undefined) {
    const name = personName(t, names, payout.initiatorId);
    return [t("approval.cancelled_standing", { name, time: at })];
  }
  if (payout.state === "cancelled" && payout.decidedAtMs !== undefined) {
    const name = personName(t, names, payout.initiatorId);
    return [t("approval.withdrawn", { name, time: at })];
  }
  if (payout.state === "expired" && payout.approvalExpiresAtMs !== undefined) {
    return [t("approval.expired", { time: t.time(payout.approvalExpiresAtMs) })];
  }
  return [];
}

/**
 * The rule of a payout that needs more than one signature (APPROVAL_RULES) and the
 * signatures given so far, by whom and when; nothing for a rule of one.
 */
export function signatureLines(
  t: Translate,
  payout: Pick<Payout, "approvalRule" | "signatures">,
  names: Names,
): string[] {
  const needed = payout.approvalRule?.signatures ?? 1;
  if (needed <= 1) return [];
  const given = payout.signatures ?? [];
  if (given.length === 0) return [t("approval.signatures_none", { needed })];
  const signers = signerList(t, given, names);
  return [t("approval.signatures_given", { needed, given: given.length, signers })];
}

/** "Ama on 29 Nov, 10:42 UTC+1, Kofi on …": each name escaped by t(), the list as HTML. */
function signerList(
  t: Translate,
  signatures: NonNullable<Payout["signatures"]>,
  names: Names,
): ReturnType<typeof html> {
  const each = signatures.map((signature) =>
    t("approval.signer", {
      name: personName(t, names, signature.userId),
      time: t.time(signature.atMs),
    }),
  );
  return html(each.join(", "));
}

/**
 * The card an approver decides on: what, to whom, who asked and when, with Approve and
 * Reject while it waits; once decided, who decided (no buttons). `status`: also say what
 * the payout is now (the card of the approver who just approved it). `duplicate`: the
 * earlier payout it repeats (its initiator among `names`), shown first as plainly as on
 * the payer's prompt, and Approve then reads "Approve anyway".
 */
export function approvalCard(
  t: Translate,
  payout: Payout,
  names: Names,
  options: { status?: boolean; duplicate?: Payout } = {},
): View {
  const asked = t("approval.asked", {
    name: personName(t, names, payout.initiatorId),
    time: t.time(payout.createdAtMs),
  });
  const details = [payoutDetails(t, payout), "", asked];
  if (payout.state === "awaiting_approval") {
    const title = payout.kind === "disbursement" ? "approval.card_pay" : "approval.card_collect";
    const expiresAtMs = payout.approvalExpiresAtMs ?? payout.updatedAtMs;
    const lines = [
      t(title),
      "",
      ...details,
      // The approver sees a saved name that changed as plainly as the payer did.
      ...aliasPromptNotes(t, payout).slice(0, 1),
      ...signatureLines(t, payout, names),
      t("approval.expires", { time: t.time(expiresAtMs) }),
    ];
    const { duplicate } = options;
    if (duplicate) lines.unshift(duplicateWarning(t, duplicate, names), "");
    const approve = duplicate
      ? Markup.button.callback(
          t.plain("button.approve_anyway"),
          CALLBACK.approveAnyway(payout.id, duplicate.createdAtMs),
        )
      : Markup.button.callback(t.plain("button.approve"), CALLBACK.approve(payout.id));
    const keyboard = Markup.inlineKeyboard([
      approve,
      Markup.button.callback(t.plain("button.reject"), CALLBACK.reject(payout.id)),
    ]).reply_markup;
    return { text: lines.join("\n"), keyboard };
  }
  // Decided: what became of it comes first.
  const decision = decisionLines(t, payout, names);
  if (options.status) {
    decision.push(t("approval.status", { state: html(t(STATE_TITLE[payout.state])) }));
  }
  return { text: [...decision, "", ...details].join("\n") };
}

/** The card of the approver who just rejected: decided, and how to give the reason. */
export function rejectedCard(t: Translate, payout: Payout, names: Names): View {
  const invite = t("approval.reason_invite", {
    name: personName(t, names, payout.initiatorId),
  });
  return { text: `${approvalCard(t, payout, names).text}\n\n${invite}` };
}

/**
 * The payer's prompt once confirmed, while it waits: who may approve, until when, and a
 * button to withdraw the request.
 */
export function waitingView(t: Translate, payout: Payout, approvers: readonly string[]): View {
  const time = t.time(payout.approvalExpiresAtMs ?? payout.updatedAtMs);
  const waiting =
    approvers.length === 0
      ? t("approval.nobody", { time })
      : t("approval.waiting_for", { approvers: approvers.join(", "), time });
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(t.plain("button.withdraw"), CALLBACK.withdraw(payout.id)),
  ]).reply_markup;
  return {
    text: [t(STATE_TITLE[payout.state]), "", payoutDetails(t, payout), "", waiting].join("\n"),
    keyboard,
  };
}

/** The payer's prompt as it is now, with the approval's decision when there was one. */
export function decidedPromptView(t: Translate, payout: Payout, names: Names): View {
  const view = payoutStateView(t, payout);
  const decision = decisionLines(t, payout, names);
  return decision.length === 0 ? view : { text: `${view.text}\n\n${decision.join("\n")}` };
}

/**
 * What the payer is pushed once an approver or the clock decided: rejected (with the
 * reason, if given), expired, or approved and sent (what came of it).
 */
export function payerDecisionNotice(t: Translate, payout: Payout, names: Names): View {
  const facts = { amount: money(t, payout.amount), name: payout.recipientName };
  if (payout.approvedBy !== undefined) {
    const approver = personName(t, names, payout.approvedBy);
    // A state that will still change is shown by the payer's prompt, which follows it; a
    // copy here would be left behind on "Pending".
    const follows = isInFlight(payout.state) && payout.messageId !== undefined;
    const now = follows ? t("notice.approved_follows") : payoutStateView(t, payout).text;
    return { text: `${t("notice.approved", { ...facts, approver })}\n\n${now}` };
  }
  if (payout.state === "rejected" && payout.rejectedBy !== undefined) {
    const approver = personName(t, names, payout.rejectedBy);
    const lines = [t("notice.rejected", { ...facts, approver })];
    if (payout.rejectionReason)
      lines.push(t("approval.reason", { reason: payout.rejectionReason }));
    return { text: lines.join("\n") };
  }
  return { text: t("notice.approval_expired", facts) };
}

/** The reason the rejecting approver gave afterwards, for the payer. */
export function rejectionReasonNotice(t: Translate, payout: Payout, names: Names): View {
  return {
    text: t("notice.rejection_reason", {
      approver: personName(t, names, payout.rejectedBy ?? 0),
      amount: money(t, payout.amount),
      name: payout.recipientName,
      reason: payout.rejectionReason ?? "",
    }),
  };
}
