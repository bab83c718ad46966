/**
 * Views of /pay and /collect: the confirmation prompt (with the duplicate warning and the
 * approval note it may carry), and the reply to a request that cannot go ahead (a bad
 * number or amount, a role that may not pay, an operator down, a daily cap). Same rules as common.ts: `t()` escapes what came from a user or the API.
 */
import { Markup } from "telegraf";
import { html, type MessageKey, type Translate } from "../../i18n.js";
import type { ApprovalBand } from "../../model/approval-rules.js";
import type { AmountProblem } from "../../model/money.js";
import type { Payout } from "../../model/payout.js";
import { formatPhone, type OperatorHint, type PhoneProblem } from "../../model/phone.js";
import type { Role } from "../../model/roles.js";
import { needsApproval } from "../../payouts/policy.js";
import type { OverLimit, PrepareFailure } from "../../payouts/types.js";
import {
  apiTroubleText,
  CALLBACK,
  money,
  type Names,
  operatorName,
  payoutDetails,
  personName,
  STATE_TITLE,
  type View,
} from "./common.js";

/** What a prompt may say besides the payout: a duplicate warning (first), notes (HTML). */
export interface PromptExtras {
  /** Shown before anything else; Confirm then reads "Pay again". */
  duplicateWarning?: string;
  notes?: readonly string[];
}

export function confirmationPrompt(
  t: Translate,
  payout: Payout,
  nowMs: number,
  extras: PromptExtras = {},
): View {
  const minutes = Math.max(1, Math.round((payout.expiresAtMs - nowMs) / 60_000));
  const title = payout.kind === "disbursement" ? "prompt.title_pay" : "prompt.title_collect";
  const warning = extras.duplicateWarning;
  const text = [
    ...(warning ? [warning, ""] : []),
    t(title),
    "",
    payoutDetails(t, payout),
    "",
    ...(extras.notes ?? []),
    t("prompt.expires", { minutes, time: t.time(payout.expiresAtMs) }),
  ].join("\n");
  const again = payout.kind === "disbursement" ? "button.pay_again" : "button.collect_again";
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(
      t.plain(warning ? again : "button.confirm"),
      CALLBACK.confirm(payout.id),
    ),
    Markup.button.callback(t.plain("button.cancel"), CALLBACK.cancel(payout.id)),
  ]).reply_markup;
  return { text, keyboard };
}

const PHONE_PROBLEM_KEY: Record<PhoneProblem, MessageKey> = {
  empty: "error.phone.empty",
  not_digits: "error.phone.not_digits",
  wrong_country: "error.phone.wrong_country",
  wrong_length: "error.phone.wrong_length",
  not_mobile: "error.phone.not_mobile",
  unsupported_operator: "error.phone.unsupported_operator",
};

const AMOUNT_PROBLEM_KEY: Record<AmountProblem, MessageKey> = {
  empty: "error.amount.empty",
  not_a_number: "error.amount.not_a_number",
  zero: "error.amount.zero",
  negative: "error.amount.negative",
  decimal: "error.amount.decimal",
  too_large: "error.amount.too_large",
};

export function phoneProblemText(
  t: Translate,
  problem: PhoneProblem,
  operator?: OperatorHint,
): string {
  return t(PHONE_PROBLEM_KEY[problem], { operator: operator ? operatorName(operator) : "" });
}

/** The refusal for a staff member whose role may read but not pay, the role in their language. */
export function cannotPayText(t: Translate, role: Role): string {
  return t("access.cannot_pay", { role: t.plain(`role.${role}`) });
}

export function amountProblemText(t: Translate, problem: AmountProblem, maxAmount: number): string {
  return t(AMOUNT_PROBLEM_KEY[problem], { max: money(t, maxAmount) });
}

/** The reply to a /pay or /collect that cannot go ahead. `command` is "pay" or "collect". */
export function prepareFailureText(
  t: Translate,
  failure: PrepareFailure,
  command: "pay" | "collect",
  maxAmount: number,
): string {
  const usage = t(command === "pay" ? "usage.pay" : "usage.collect");
  switch (failure.reason) {
    case "bad_phone":
      return `${phoneProblemText(t, failure.problem, failure.operator)}\n${usage}`;
    case "bad_amount":
      return `${amountProblemText(t, failure.problem, maxAmount)}\n${usage}`;
    case "operator_unavailable":
      return t(
        failure.kind === "disbursement"
          ? "error.unavailable_disburse"
          : "error.unavailable_collect",
        {
          operator: operatorName(failure.operator),
        },
      );
    case "no_account":
      return t("error.no_account", { phone: formatPhone(failure.phone) });
    case "api_error":
      return apiTroubleText(t, failure.error);
    case "over_limit":
      return overLimitText(t, failure.over);
  }
}

/** A payout or Confirm refused over a daily cap: which cap, and what is left today. */
export function overLimitText(t: Translate, over: OverLimit): string {
  const key = over.limit === "payer" ? "limit.over_payer" : "limit.over_merchant";
  return t(key, { cap: money(t, over.capXaf), left: money(t, over.leftXaf) });
}

/**
 * The warning at the top of a prompt that repeats `earlier` (the same amount to the same
 * number): when it was made, by whom, and where it stands.
 */
export function duplicateWarning(t: Translate, earlier: Payout, names: Names): string {
  const key = earlier.kind === "disbursement" ? "prompt.duplicate_pay" : "prompt.duplicate_collect";
  return t(key, {
    when: t.time(earlier.createdAtMs),
    who: personName(t, names, earlier.initiatorId),
    state: html(t(STATE_TITLE[earlier.state])),
  });
}

/**
 * What a new prompt says besides the payout: a warning of the payout it repeats
 * (`duplicate`, its initiator among `names`), and that a second person will approve it
 * when its amount is at or over `threshold` (APPROVAL_THRESHOLD_XAF), or that several will
 * sign when its `band` of APPROVAL_RULES needs more than one.
 */
export function promptExtras(
  t: Translate,
  payout: Payout,
  facts: {
    duplicate?: Payout;
    names: Names | null;
    threshold: number | undefined;
    /** The approval rule's band its amount falls in (APPROVAL_RULES), if any. */
    band?: ApprovalBand | undefined;
  },
): PromptExtras {
  const { duplicate, threshold, band } = facts;
  const extras: PromptExtras = {};
  if (duplicate) extras.duplicateWarning = duplicateWarning(t, duplicate, facts.names ?? new Map());
  if (band !== undefined && band.signatures > 1) {
    const needed = band.signatures;
    extras.notes = [t("prompt.needs_signatures", { threshold: money(t, band.fromXaf), needed })];
  } else if (threshold !== undefined && needsApproval(payout.amount, threshold)) {
    extras.notes = [t("prompt.needs_approval", { threshold: money(t, threshold) })];
  }
  return extras;
}
