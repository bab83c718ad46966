import type { InlineKeyboardMarkup } from "telegraf/types";
import type { MessageKey, Translate } from "../../i18n.js";
import type { PayoutState } from "../../model/lifecycle.js";
import { formatAmount } from "../../model/money.js";
import { chargedFee, type Payout } from "../../model/payout.js";
import { formatPhone, type OperatorHint } from "../../model/phone.js";
import { SignatureError } from "../../payments/errors.js";

export interface View {
  text: string;
  keyboard?: InlineKeyboardMarkup;
}

/** Callback data: a one-letter action and the payout's opaque random id. */
export const CALLBACK = {
  confirm: (payoutId: string) => `c:${payoutId}`,
  cancel: (payoutId: string) => `x:${payoutId}`,
  history: (page: number) => `h:${page}`,
  unknown: (page: number) => `u:${page}`,
  approve: (payoutId: string) => `a:${payoutId}`,
  /** Approve despite a duplicate: the creation time (base 36) of the one the card showed. */
  approveAnyway: (payoutId: string, seenAtMs: number) => `A:${payoutId}:${seenAtMs.toString(36)}`,
  reject: (payoutId: string) => `r:${payoutId}`,
  withdraw: (payoutId: string) => `w:${payoutId}`,
} as const;
export const CALLBACK_PATTERN = {
  confirm: /^c:([\w-]{8,40})$/,
  cancel: /^x:([\w-]{8,40})$/,
  approve: /^a:([\w-]{8,40})$/,
  approveAnyway: /^A:([\w-]{8,40}):([0-9a-z]{1,11})$/,
  reject: /^r:([\w-]{8,40})$/,
  withdraw: /^w:([\w-]{8,40})$/,
  history: /^h:(\d{1,4})$/,
  unknown: /^u:(\d{1,4})$/,
} as const;

const OPERATOR_NAMES: Record<OperatorHint, string> = {
  mtn: "MTN MoMo",
  orange: "Orange Money",
  nexttel: "Nexttel",
  camtel: "Camtel",
};

export function operatorName(operator: OperatorHint): string {
  return OPERATOR_NAMES[operator];
}

/** An amount in the reader's language. */
export function money(t: Translate, amount: number): string {
  return formatAmount(amount, t.locale);
}

export function numberLine(t: Translate, payout: Payout): string {
  return t("payout.number", {
    phone: formatPhone(payout.phone),
    operator: operatorName(payout.operator),
  });
}

/** A fee is charged on money that moved; a failed or canceled payment shows none. */
export function feeLines(t: Translate, payout: Payout): string[] {
  const fee = chargedFee(payout);
  return fee !== undefined ? [t("payout.fee", { fee: money(t, fee) })] : [];
}

/** The lines every payout message shares: who, which number, how much, the note. */
export function payoutDetails(t: Translate, payout: Payout): string {
  const alias = payout.recipientAlias;
  const to = payout.kind === "disbursement";
  const lines = [
    alias === undefined
      ? t(to ? "payout.to" : "payout.from", { name: payout.recipientName })
      : t(to ? "payout.to_alias" : "payout.from_alias", { name: payout.recipientName, alias }),
    numberLine(t, payout),
    t("payout.amount", { amount: money(t, payout.amount) }),
  ];
  if (payout.note) lines.push(t("payout.note", { note: payout.note }));
  return lines.join("\n");
}

/** The title of each state, as the prompt and history lines show it. */
export const STATE_TITLE: Record<PayoutState, MessageKey> = {
  awaiting_confirmation: "state.awaiting_confirmation",
  awaiting_approval: "state.awaiting_approval",
  submitting: "state.submitting",
  pending: "state.pending",
  unknown: "state.unknown",
  cancelled: "state.cancelled",
  expired: "state.expired",
  rejected: "state.rejected",
  rejected_by_api: "state.rejected_by_api",
  success: "state.success",
  failed: "state.failed",
  canceled: "state.canceled",
};

/** Why the API refused, in words a payer can act on. */
export function refusalReason(t: Translate, payout: Payout): string {
  if (payout.heldBackBecause === "storage_not_confirmed") return t("refusal.storage");
  const detail = payout.errorMessage ?? "";
  switch (payout.errorStatusCode) {
    case 400:
      return t("refusal.400", { detail });
    case 401:
      return t("refusal.401");
    case 403:
      return t(payout.kind === "collection" ? "refusal.403_collect" : "refusal.403_disburse", {
        detail,
      });
    case 404:
      return t("refusal.404");
    case 429:
      return t("refusal.429");
    case undefined:
      return t("refusal.not_sent");
    default:
      return t("refusal.other", { status: payout.errorStatusCode, detail });
  }
}

/** The prompt message as it reads once the payout has moved to `payout.state`. */
export function payoutStateView(t: Translate, payout: Payout): View {
  const lines = [t(STATE_TITLE[payout.state]), "", payoutDetails(t, payout)];
  if (payout.paymentId) lines.push(t("payout.payment_id", { id: payout.paymentId }));
  lines.push(...feeLines(t, payout));
  if (payout.settledAtMs !== undefined) {
    lines.push(t("payout.settled_at", { time: t.time(payout.settledAtMs) }));
  }
  const explanation = stateExplanation(t, payout);
  if (explanation) lines.push("", explanation);
  return { text: lines.join("\n") };
}

/**
 * For a payment that failed or was canceled: what the API said about it, when it said
 * anything, and what to do next. Nothing for any other state.
 */
export function outcomeAdvice(t: Translate, payout: Payout): string[] {
  if (payout.state !== "failed" && payout.state !== "canceled") return [];
  const next: MessageKey =
    payout.state === "failed"
      ? payout.kind === "disbursement"
        ? "next.failed_disbursement"
        : "next.failed_collection"
      : payout.kind === "disbursement"
        ? "next.canceled_disbursement"
        : "next.canceled_collection";
  const said = payout.apiRemark ? [t("explain.api_said", { remark: payout.apiRemark })] : [];
  return [...said, t(next)];
}

function stateExplanation(t: Translate, payout: Payout): string | undefined {
  switch (payout.state) {
    case "pending":
      return t("explain.pending");
    case "unknown":
      return t("explain.unknown");
    case "rejected_by_api":
      return `${refusalReason(t, payout)}\n${t("explain.nothing_paid")}`;
    case "cancelled":
    case "expired":
    case "rejected":
      return t("explain.nothing_paid");
    case "failed":
    case "canceled":
      return [
        t(payout.kind === "disbursement" ? "explain.not_paid_out" : "explain.not_collected"),
        ...outcomeAdvice(t, payout),
      ].join("\n");
    default:
      return undefined;
  }
}

/**
 * What a failed Payment API call means to the user: answers that fail the signature check
 * are not an outage (a wrong PAYMENT_SIGNATURE_PUBLIC_KEY, or a sandbox with a new key).
 */
export function apiTroubleText(t: Translate, error: unknown): string {
  return t(error instanceof SignatureError ? "error.api_unsigned" : "error.api_unreachable");
}

/** Staff first names by user id (see `personName`); a name unknown reads "user 1002". */
export type Names = ReadonlyMap<number, string>;

/**
 * A person as every view names them: the first name Telegram gave them, else by id
 * ("user 1002"). The one place a staff member's display name is made.
 */
export function personName(t: Translate, names: Names, id: number): string {
  return names.get(id) ?? t.plain("history.user_id", { id });
}
