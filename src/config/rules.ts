/**
 * The rules a payout must pass beyond its own checks (part of config/index.ts's schema):
 * one or more people at or over APPROVAL_THRESHOLD_XAF, or by the bands of APPROVAL_RULES
 * (config/approval-rules.ts), who have APPROVAL_TTL_HOURS to decide;
 * daily caps per payer and for everyone (PAYER_DAILY_LIMIT_XAF, MERCHANT_DAILY_LIMIT_XAF),
 * counted per calendar day in TIME_ZONE; and the window of the duplicate warning
 * (DUPLICATE_WINDOW_MINUTES). A threshold or cap left unset is off.
 */
import { z } from "zod";
import { MAX_AMOUNT_XAF } from "../model/money.js";
import type { BatchSettings, PayoutRules } from "../payouts/types.js";
import { parseApprovalRules, singleApproverBand } from "./approval-rules.js";
import { intInRange, optionalIntInRange, optionalText, textOf } from "./env-values.js";

/** A day's cap can be large, but not beyond what a JavaScript number counts exactly. */
const MAX_DAILY_LIMIT_XAF = 1_000_000_000_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

export const rulesEnvShape = {
  APPROVAL_RULES: optionalText(),
  APPROVAL_THRESHOLD_XAF: optionalIntInRange(1, MAX_AMOUNT_XAF),
  APPROVAL_TTL_HOURS: intInRange(24, 1, 24 * 30),
  PAYER_DAILY_LIMIT_XAF: optionalIntInRange(1, MAX_DAILY_LIMIT_XAF),
  MERCHANT_DAILY_LIMIT_XAF: optionalIntInRange(1, MAX_DAILY_LIMIT_XAF),
  DUPLICATE_WINDOW_MINUTES: intInRange(1440, 0, 60 * 24 * 30),
  BATCH_MAX_ROWS: intInRange(1000, 1, 10_000),
  BATCH_RATE_SHARE_PERCENT: intInRange(95, 50, 100),
};

const rulesEnvSchema = z.object(rulesEnvShape);
export type RulesEnvValues = z.output<typeof rulesEnvSchema>;

/** A whole number of the raw environment, or undefined (its format is the schema's to report). */
function wholeNumber(value: string | undefined): number | undefined {
  const text = textOf(value);
  const parsed = text === undefined ? Number.NaN : Number(text);
  return Number.isInteger(parsed) ? parsed : undefined;
}

/**
 * Problems between these variables and the retention, read from the raw environment so
 * that a bad value elsewhere does not hide them: a payout awaiting approval (when
 * approvals are on), and the payouts the duplicate warning looks back at, must be kept.
 */
export function rulesProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const retentionDays = wholeNumber(env.PAYOUT_RETENTION_DAYS) ?? 90;
  const ttlHours = wholeNumber(env.APPROVAL_TTL_HOURS) ?? 24;
  const threshold = textOf(env.APPROVAL_THRESHOLD_XAF);
  const rules = textOf(env.APPROVAL_RULES);
  if (rules !== undefined && threshold !== undefined) {
    problems.push(
      "APPROVAL_RULES and APPROVAL_THRESHOLD_XAF: set one of them, not both (APPROVAL_THRESHOLD_XAF=X means APPROVAL_RULES=X:1)",
    );
  } else if (rules !== undefined) {
    const parsed = parseApprovalRules(rules);
    if ("problems" in parsed) problems.push(...parsed.problems.map((p) => `APPROVAL_RULES: ${p}`));
  }
  const approvals = threshold !== undefined || rules !== undefined;
  if (approvals && ttlHours >= retentionDays * 24) {
    problems.push(
      `APPROVAL_TTL_HOURS: must be shorter than PAYOUT_RETENTION_DAYS (${retentionDays} days), which is how long a payout awaiting approval is kept`,
    );
  }
  const windowMinutes = wholeNumber(env.DUPLICATE_WINDOW_MINUTES) ?? 1440;
  if (windowMinutes > retentionDays * 24 * 60) {
    problems.push(
      `DUPLICATE_WINDOW_MINUTES: must be at most PAYOUT_RETENTION_DAYS (${retentionDays} days); older payouts are not kept to compare with`,
    );
  }
  return problems;
}

/** The rules part of the configuration, from values the schema accepted. */
export function rulesConfig(values: RulesEnvValues, timeZone: string): PayoutRules {
  const parsed =
    values.APPROVAL_RULES === undefined ? undefined : parseApprovalRules(values.APPROVAL_RULES);
  const threshold = values.APPROVAL_THRESHOLD_XAF;
  // rulesProblems refused bad rules already: here they are good, or absent.
  const approvalBands =
    parsed !== undefined && "bands" in parsed
      ? parsed.bands
      : threshold === undefined
        ? []
        : [singleApproverBand(threshold)];
  return {
    approvalThresholdXaf: approvalBands[0]?.fromXaf,
    approvalBands,
    approvalTtlMs: values.APPROVAL_TTL_HOURS * HOUR_MS,
    payerDailyLimitXaf: values.PAYER_DAILY_LIMIT_XAF,
    merchantDailyLimitXaf: values.MERCHANT_DAILY_LIMIT_XAF,
    duplicateWindowMs: values.DUPLICATE_WINDOW_MINUTES * MINUTE_MS,
    timeZone,
  };
}

/**
 * Batch payouts: BATCH_MAX_ROWS rows (and 1 MB) per file, and the share of the API's rate
 * limit a batch may use (BATCH_RATE_SHARE_PERCENT): the rest of each window is left to
 * interactive /pay, at least one slot.
 */
export function batchConfig(
  values: RulesEnvValues,
  rateLimitPerMinute: number,
  stuckAfterMs: number,
): BatchSettings {
  const share = Math.floor((rateLimitPerMinute * values.BATCH_RATE_SHARE_PERCENT) / 100);
  return {
    maxRows: values.BATCH_MAX_ROWS,
    maxBytes: 1_000_000,
    previewTtlMs: HOUR_MS,
    leave: Math.max(1, rateLimitPerMinute - share),
    stuckAfterMs,
  };
}
