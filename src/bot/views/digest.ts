/**
 * What the bot tells after the fact about the business rather than one payout: the
 * admins' daily digest, and an operator's operation going down or coming back. Same rules
 * as common.ts: everything from a user or the API goes in escaped by `t()`.
 */
import { html, type Translate } from "../../i18n.js";
import { formatCount } from "../../model/money.js";
import type { PayoutKind } from "../../model/payout.js";
import type { Role } from "../../model/roles.js";
import type { DigestFacts, KindTotals } from "../../payouts/loops/digest.js";
import type { AvailabilityAlert } from "../../payouts/loops/notifier.js";
import { money, operatorName, personName, STATE_TITLE, type View } from "./common.js";
import { payoutLine, statusWord } from "./reports.js";

const KIND_TITLE = {
  disbursement: "digest.payouts",
  collection: "digest.collections",
} as const;

function kindLines(t: Translate, kind: PayoutKind, totals: KindTotals): string[] {
  if (totals.states.length === 0) return [];
  return [
    "",
    t(KIND_TITLE[kind]),
    ...totals.states.flatMap((total) => [
      t("digest.state_line", {
        state: html(t(STATE_TITLE[total.state])),
        count: formatCount(total.count, t.locale),
        amount: money(t, total.amount),
      }),
      ...(total.partlySigned ? [t("digest.partly_signed", { count: total.partlySigned })] : []),
    ]),
    ...(totals.fees > 0 ? [t("digest.fees", { fee: money(t, totals.fees) })] : []),
  ];
}

/**
 * The day's digest. `names`: first names of staff (who made the payouts needing a person,
 * and whose limits are shown).
 */
export function digestView(
  t: Translate,
  facts: DigestFacts,
  names: ReadonlyMap<number, string> = new Map(),
): View {
  const lines = [t("digest.title", { from: t.time(facts.fromMs), to: t.time(facts.toMs) })];
  const totals = [
    ...kindLines(t, "disbursement", facts.totals.disbursement),
    ...kindLines(t, "collection", facts.totals.collection),
  ];
  lines.push(...(totals.length > 0 ? totals : ["", t("digest.nothing")]));
  lines.push("");
  if (facts.attentionTotal === 0) lines.push(t("digest.attention_none"));
  else {
    lines.push(t("digest.attention", { count: formatCount(facts.attentionTotal, t.locale) }));
    for (const payout of facts.attention) {
      lines.push(payoutLine(t, payout, personName(t, names, payout.initiatorId)));
    }
    const more = facts.attentionTotal - facts.attention.length;
    if (more > 0) lines.push(t("digest.attention_more", { count: more }));
  }
  if (facts.batches.length > 0) {
    lines.push("", t("digest.batches"));
    for (const batch of facts.batches) {
      lines.push(
        t("digest.batch_line", {
          ref: batch.batchId,
          count: batch.payouts,
          succeeded: batch.succeeded,
          amount: money(t, batch.amount),
        }),
      );
    }
  }
  if (facts.limits.length > 0) {
    lines.push("", t("digest.limits"));
    for (const limit of facts.limits) {
      const use = { used: money(t, limit.usedXaf), limit: money(t, limit.limitXaf) };
      lines.push(
        limit.userId === undefined
          ? t("digest.limit_merchant", use)
          : t("digest.limit_payer", { ...use, name: personName(t, names, limit.userId) }),
      );
    }
  }
  lines.push(...staffLines(t, facts, names));
  const schedules = facts.schedules;
  if (schedules && (schedules.tomorrowRuns > 0 || schedules.heldRuns > 0)) {
    lines.push("", t("schedule.digest_title"));
    const total = money(t, schedules.tomorrowXaf);
    lines.push(t("schedule.digest_tomorrow", { count: schedules.tomorrowRuns, total }));
    if (schedules.heldRuns > 0) {
      lines.push(t("schedule.digest_held", { count: schedules.heldRuns }));
    }
  }
  return { text: lines.join("\n") };
}

/** The day's staff changes: who, the role before → after, by whom (none: no section). */
function staffLines(t: Translate, facts: DigestFacts, names: ReadonlyMap<number, string>) {
  if (facts.staffChangesTotal === 0) return [];
  const role = (value: Role | null) =>
    value === null ? t("digest.not_staff") : t(`role.${value}`);
  const lines = ["", t("digest.staff", { count: formatCount(facts.staffChangesTotal, t.locale) })];
  for (const change of facts.staffChanges) {
    const line = {
      name: personName(t, names, change.userId),
      after: html(role(change.after)),
      by: change.byUserId === 0 ? t("standing.by_env") : personName(t, names, change.byUserId),
    };
    lines.push(
      change.before === undefined
        ? t("digest.staff_line_now", line)
        : t("digest.staff_line", { ...line, before: html(role(change.before)) }),
    );
  }
  const more = facts.staffChangesTotal - facts.staffChanges.length;
  if (more > 0) lines.push(t("digest.staff_more", { count: formatCount(more, t.locale) }));
  return lines;
}

const ALERT_KEY = {
  down: { disbursement: "alert.down_disbursement", collection: "alert.down_collection" },
  up: { disbursement: "alert.up_disbursement", collection: "alert.up_collection" },
} as const;

const PENDING_KEY = {
  disbursement: "alert.pending_disbursement",
  collection: "alert.pending_collection",
} as const;

/**
 * An operation went down or came back: which operator and operation, since when, and how
 * many of its payouts (or collections) are pending now.
 */
export function availabilityAlertView(
  t: Translate,
  alert: AvailabilityAlert,
  up: boolean,
  pending: number,
): View {
  const operator = operatorName(alert.operator);
  const lines = [
    t(ALERT_KEY[up ? "up" : "down"][alert.operation], {
      operator,
      status: html(statusWord(t, alert.status)),
      time: t.time(alert.sinceMs),
    }),
    t(PENDING_KEY[alert.operation], { operator, count: formatCount(pending, t.locale) }),
  ];
  if (!up) lines.push(t("alert.down_hint"));
  return { text: lines.join("\n") };
}
