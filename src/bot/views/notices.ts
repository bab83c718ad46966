/**
 * What the bot tells people after the fact, through the outbox (messenger/messenger.ts): a
 * final status, a payout that looks stuck, an answer that does not match its request. Same
 * rules as common.ts: everything from a user or the API is escaped by `t()`.
 */
import type { MessageKey, Translate } from "../../i18n.js";
import type { Payout } from "../../model/payout.js";
import { feeLines, money, numberLine, outcomeAdvice, type View } from "./common.js";

/** The push message for a final status (what makes the payer's phone buzz). */
export function settlementNotice(t: Translate, payout: Payout): View {
  const key: MessageKey =
    payout.state === "success"
      ? payout.kind === "disbursement"
        ? "notice.paid"
        : "notice.collected"
      : payout.state === "failed"
        ? "notice.failed"
        : "notice.canceled";
  const lines = [
    t(key, { amount: money(t, payout.amount), name: payout.recipientName }),
    numberLine(t, payout),
  ];
  lines.push(...feeLines(t, payout));
  if (payout.paymentId) lines.push(t("payout.payment_id", { id: payout.paymentId }));
  if (payout.scheduleId) lines.push(t("schedule.run_of", { ref: payout.scheduleId }));
  lines.push(
    t("payout.settled_at", {
      time: t.time(payout.settledAtMs ?? payout.updatedAtMs),
    }),
  );
  const advice = outcomeAdvice(t, payout);
  if (advice.length > 0) lines.push("", ...advice);
  return { text: lines.join("\n") };
}

/** The notice for a payout still pending after the stuck limit. */
export function stuckNotice(t: Translate, payout: Payout): View {
  return {
    text: [
      t("notice.stuck", { amount: money(t, payout.amount), name: payout.recipientName }),
      t("payout.payment_id", { id: payout.paymentId ?? "—" }),
    ].join("\n"),
  };
}

/** To admins: a 201 answered this payout with a payment that is not its own. */
export function mismatchNotice(t: Translate, payout: Payout): View {
  return {
    text: [
      t("notice.mismatch", {
        amount: money(t, payout.amount),
        name: payout.recipientName,
        ref: payout.id,
      }),
      t("payout.payment_id", { id: payout.candidatePaymentId ?? "—" }),
    ].join("\n"),
  };
}
