/**
 * The view of /limits: the daily caps, what the reader and everyone used and have left
 * today. Same rules as common.ts: everything from a user or the API is escaped by `t()`.
 */
import type { Translate } from "../../i18n.js";
import type { ApprovalBand } from "../../model/approval-rules.js";
import type { Role } from "../../model/roles.js";
import type { LimitsReport } from "../../payouts/limits.js";
import { dayInWords } from "../../time.js";
import { money, type Names, personName, type View } from "./common.js";

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

/** Who signs in a band, in words. */
function rolesInWords(t: Translate, roles: readonly Role[]): string {
  if (roles.length === 1 && roles[0] === "admin") return t.plain("limits.roles_admin");
  if (roles.length === 1 && roles[0] === "approver") return t.plain("limits.roles_approver");
  return t.plain("limits.roles_deciders");
}

/** The approval rules (APPROVAL_RULES) in words: nothing under the first band, then each. */
function approvalLines(t: Translate, bands: readonly ApprovalBand[]): string[] {
  const first = bands[0];
  if (first === undefined) return [t("limits.approvals"), t("limits.approvals_none")];
  return [
    t("limits.approvals"),
    t("limits.approvals_below", { from: money(t, first.fromXaf) }),
    ...bands.map((band) =>
      t("limits.approvals_band", {
        from: money(t, band.fromXaf),
        needed: band.signatures,
        roles: rolesInWords(t, band.roles),
      }),
    ),
  ];
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
  lines.push("", ...approvalLines(t, report.approvalBands));
  lines.push("", t("limits.rule", { zone: t.zoneName }));
  return { text: lines.join("\n") };
}
