/**
 * Views of the rules a payout passes besides its own checks: the duplicate warning and the
 * approval note of a prompt, and /limits. Same rules as common.ts: everything from a user
 * or the API is escaped by `t()`.
 */
import { html, type Translate } from "../../i18n.js";
import type { Payout } from "../../model/payout.js";
import type { LimitsReport } from "../../payouts/limits.js";
import { needsApproval } from "../../payouts/policy.js";
import { dayInWords } from "../../time.js";
import { money, type Names, personName, STATE_TITLE, type View } from "./common.js";
import type { PromptExtras } from "./pay.js";

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
 * when its amount is at or over `threshold` (APPROVAL_THRESHOLD_XAF).
 */
export function promptExtras(
  t: Translate,
  payout: Payout,
  facts: { duplicate?: Payout; names: Names | null; threshold: number | undefined },
): PromptExtras {
  const { duplicate, threshold } = facts;
  const extras: PromptExtras = {};
  if (duplicate) extras.duplicateWarning = duplicateWarning(t, duplicate, facts.names ?? new Map());
  if (threshold !== undefined && needsApproval(payout.amount, threshold)) {
    extras.notes = [t("prompt.needs_approval", { threshold: money(t, threshold) })];
  }
  return extras;
}

/** Who is asking /limits: their own spending, and everyone's by payer when they may see it. */
export interface LimitsReader {
  userId: number;
  /** They pay: their own use today is shown. */
  pays: boolean;
  /** They may see everyone's spending, payer by payer. */
  everyone: boolean;
}

type UsageKeys =
  | { capped: "limits.yours"; uncapped: "limits.yours_uncapped" }
  | { capped: "limits.everyone"; uncapped: "limits.everyone_uncapped" };

/** What was used, and what is left under the caps that count (`lefts`; none: uncapped). */
function usageLine(t: Translate, keys: UsageKeys, usedXaf: number, lefts: number[]): string {
  const used = money(t, usedXaf);
  if (lefts.length === 0) return t(keys.uncapped, { used });
  return t(keys.capped, { used, left: money(t, Math.max(0, Math.min(...lefts))) });
}

/** /limits: the caps, what the reader and everyone used and have left today, and the rule. */
export function limitsView(
  t: Translate,
  report: LimitsReport,
  reader: LimitsReader,
  names: Names,
): View {
  const { payerCapXaf: payerCap, merchantCapXaf: merchantCap } = report;
  const lines = [
    t("limits.title", { day: dayInWords(report.day, t.locale) }),
    payerCap === undefined
      ? t("limits.payer_none")
      : t("limits.payer_cap", { cap: money(t, payerCap) }),
    merchantCap === undefined
      ? t("limits.merchant_none")
      : t("limits.merchant_cap", { cap: money(t, merchantCap) }),
    "",
  ];
  const everyoneLeft = merchantCap === undefined ? [] : [merchantCap - report.merchantUsedXaf];
  if (reader.pays) {
    const mine = report.byUser.get(reader.userId) ?? 0;
    const mineLeft = payerCap === undefined ? [] : [payerCap - mine];
    const keys = { capped: "limits.yours", uncapped: "limits.yours_uncapped" } as const;
    lines.push(usageLine(t, keys, mine, [...mineLeft, ...everyoneLeft]));
  }
  const keys = { capped: "limits.everyone", uncapped: "limits.everyone_uncapped" } as const;
  lines.push(usageLine(t, keys, report.merchantUsedXaf, everyoneLeft));
  if (reader.everyone) {
    lines.push("", t("limits.by_payer"));
    const payers = [...report.byUser].sort(([a, x], [b, y]) => y - x || a - b);
    if (payers.length === 0) lines.push(t("limits.by_payer_none"));
    for (const [userId, usedXaf] of payers) {
      const name = personName(t, names, userId);
      lines.push(t("limits.by_payer_line", { name, used: money(t, usedXaf) }));
    }
  }
  lines.push("", t("limits.rule", { zone: t.zoneName }));
  return { text: lines.join("\n") };
}
