/**
 * Views of what the bot reports rather than asks: operator availability, a payment as the
 * API sees it (/status), and the history pages. Same rules as common.ts: everything from a
 * user or the API is escaped by `t()`.
 */
import { Markup } from "telegraf";
import { html, type MessageKey, type Param, type Translate } from "../../i18n.js";
import type { OperationState } from "../../model/availability.js";
import { knownOperator, knownStatus, type PaymentStatus } from "../../model/payment-terms.js";
import type { Payout } from "../../model/payout.js";
import { formatPhone, maskedPhone } from "../../model/phone.js";
import type { AvailabilityEntry, Payment } from "../../payments/schemas.js";
import { CALLBACK, money, operatorName, personName, STATE_TITLE, type View } from "./common.js";

/** An operation's status as the API writes it, in the reader's words ("Suspendu"). */
const STATUS_KEY: Readonly<Record<string, MessageKey>> = {
  SUSPENDED: "availability.status_suspended",
  NOT_LISTED: "availability.status_not_listed",
  UNREADABLE: "availability.status_unreadable",
};

/**
 * A status other than OPERATIONAL, said in words: the ones the bot knows by name, any other
 * as "unavailable" with the API's code beside it (the only trace of what it said).
 */
export function statusWord(t: Translate, status: string): string {
  const key = STATUS_KEY[status];
  return key === undefined ? t("availability.status_other", { status }) : t(key);
}

/**
 * /availability: each operator's payouts and collections as the API reports them now, and
 * since when (`states`: what the bot last saw, with the time of each one's last change).
 */
export function availabilityView(
  t: Translate,
  entries: readonly AvailabilityEntry[],
  states: readonly OperationState[] = [],
): View {
  const lines = [t("availability.title"), ""];
  for (const operator of ["mtn", "orange"] as const) {
    const status = (type: "collection" | "disbursement") => {
      const entry = entries.find(
        (item) => item.operator === operator && item.operation.type === type,
      );
      const now = !entry
        ? t("availability.unlisted")
        : entry.operation.status === "OPERATIONAL"
          ? t("availability.up")
          : t("availability.down", { status: html(statusWord(t, entry.operation.status)) });
      const seen = states.find((state) => state.operator === operator && state.operation === type);
      // Only a time that belongs to what is shown: the state seen must say the same.
      if (!seen || seen.up !== (entry?.operation.status === "OPERATIONAL")) return now;
      const since = { status: html(now), time: t.time(seen.sinceMs) };
      return seen.firstSeen ? t("availability.seen_since", since) : t("availability.since", since);
    };
    lines.push(
      t("availability.line", {
        operator: operatorName(operator),
        disbursement: html(status("disbursement")),
        collection: html(status("collection")),
      }),
    );
  }
  return { text: lines.join("\n") };
}

const PAYMENT_STATUS_KEY = {
  pending: "payment_status.pending",
  success: "payment_status.success",
  failed: "payment_status.failed",
  canceled: "payment_status.canceled",
} as const satisfies Record<PaymentStatus, MessageKey>;

/** A status the spec names, translated; any other the API sends, shown as it came. */
function paymentStatusText(t: Translate, status: string | undefined): Param {
  const known = knownStatus(status);
  if (known) return html(t(PAYMENT_STATUS_KEY[known]));
  return status ?? "?";
}

/** An operator we know by its name; any other as the API wrote it. */
function paymentOperatorText(operator: string | undefined): string {
  const known = knownOperator(operator);
  return known ? operatorName(known) : (operator ?? "?");
}

/** /status: the payment as the API reports it. */
export function paymentView(t: Translate, payment: Payment): View {
  const lines = [
    t("status.title", { id: payment.id }),
    t("status.status", { status: paymentStatusText(t, payment.status) }),
  ];
  if (payment.paymentType)
    lines.push(
      t(
        payment.paymentType === "disbursement"
          ? "status.type_disbursement"
          : "status.type_collection",
      ),
    );
  if (payment.amount !== undefined)
    lines.push(t("payout.amount", { amount: money(t, payment.amount) }));
  // The fee rule of chargedFee (model/payout.ts): shown once the payment succeeded, never else.
  if (payment.fee !== undefined && payment.status === "success")
    lines.push(t("payout.fee", { fee: money(t, payment.fee) }));
  if (payment.phoneNumber) {
    lines.push(
      t("payout.number", {
        phone: formatPhone(payment.phoneNumber),
        operator: paymentOperatorText(payment.telecomOperator),
      }),
    );
  }
  const updated = payment.updatedAt ?? payment.createdAt;
  if (updated && !Number.isNaN(Date.parse(updated))) {
    lines.push(t("status.updated", { time: t.time(Date.parse(updated)) }));
  }
  return { text: lines.join("\n") };
}

/** A number in a list, masked (model/phone's `maskedPhone`; here for the views' imports). */
export { maskedPhone };

/**
 * One line per payout for /history and /unknown: its state, payout or collection, how
 * much, to or from whom (masked number), when, and, given `initiator`, who made it.
 */
export function payoutLine(t: Translate, payout: Payout, initiator?: string): string {
  const what = t(payout.kind === "disbursement" ? "history.payout" : "history.collection", {
    amount: money(t, payout.amount),
    name: payout.recipientName,
    phone: maskedPhone(payout.phone),
  });
  const parts = {
    state: html(t(STATE_TITLE[payout.state])),
    what: html(what),
    time: t.time(payout.createdAtMs),
    ref: payout.id,
  };
  return initiator === undefined
    ? t("history.line", parts)
    : t("history.line_with_initiator", { ...parts, initiator });
}

/** Older/newer buttons of a paged list, or none when it fits on one page. */
function pageButtons(
  t: Translate,
  page: number,
  pages: number,
  callback: (page: number) => string,
) {
  const buttons = [];
  if (page > 0) buttons.push(Markup.button.callback(t.plain("button.newer"), callback(page - 1)));
  if (page + 1 < pages) {
    buttons.push(Markup.button.callback(t.plain("button.older"), callback(page + 1)));
  }
  return buttons.length > 0 ? Markup.inlineKeyboard([buttons]).reply_markup : undefined;
}

/**
 * /unknown: one page of the payouts whose outcome is unknown, newest first, and what to do.
 * `names`: first names of the staff who made them (see `personName`).
 */
export function unknownView(
  t: Translate,
  page: { items: Payout[]; total: number; page: number; pageSize: number },
  names: ReadonlyMap<number, string> = new Map(),
): View {
  if (page.total === 0) return { text: t("unknown.none") };
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const lines = [t("unknown.title", { count: page.total }), ""];
  if (pages > 1) lines[1] = t("unknown.page", { page: page.page + 1, pages });
  for (const payout of page.items) {
    lines.push(payoutLine(t, payout, personName(t, names, payout.initiatorId)));
    if (payout.candidatePaymentId) {
      lines.push(t("unknown.hint", { ref: payout.id, id: payout.candidatePaymentId }));
    }
  }
  lines.push("", t("unknown.how"));
  const keyboard = pageButtons(t, page.page, pages, CALLBACK.unknown);
  return keyboard ? { text: lines.join("\n"), keyboard } : { text: lines.join("\n") };
}

/**
 * /history: one page, newest first. With `everyone` (admins, viewers) each line says who
 * made the payout, by `names` (see `personName`); a payer's own list does not.
 */
export function historyView(
  t: Translate,
  page: { items: Payout[]; total: number; page: number; pageSize: number },
  everyone: boolean,
  names: ReadonlyMap<number, string> = new Map(),
): View {
  if (page.total === 0) return { text: t("history.empty") };
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const lines = [
    t(everyone ? "history.title_all" : "history.title", { page: page.page + 1, pages }),
    "",
    ...page.items.map((payout) =>
      payoutLine(t, payout, everyone ? personName(t, names, payout.initiatorId) : undefined),
    ),
  ];
  const buttons = [];
  if (page.page > 0)
    buttons.push(Markup.button.callback(t.plain("button.newer"), CALLBACK.history(page.page - 1)));
  if (page.page + 1 < pages)
    buttons.push(Markup.button.callback(t.plain("button.older"), CALLBACK.history(page.page + 1)));
  return buttons.length > 0
    ? { text: lines.join("\n"), keyboard: Markup.inlineKeyboard([buttons]).reply_markup }
    : { text: lines.join("\n") };
}
