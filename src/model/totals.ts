/**
 * The days' settled totals: what the Mini App's Overview shows (paid volume by operator,
 * success rate, fees), kept by the stores as payouts settle instead of recounted from every
 * payout. A payout is counted once, on the local day (TIME_ZONE) it reached a final state the
 * API gave (`COUNTED_STATES`; a final state has no way out, so it is reached once), in
 * everyone's totals of that day and its initiator's. Pure (no I/O).
 */
import type { PayoutState } from "./lifecycle.js";
import { chargedFee, type Payout } from "./payout.js";

/** The final states a payment request reached: the success rate's denominator. */
export const COUNTED_STATES: ReadonlySet<PayoutState> = new Set<PayoutState>([
  "success",
  "failed",
  "canceled",
  "rejected_by_api",
]);

/**
 * Totals are kept at least this long: the Overview's 30 days, the 30 before them it compares
 * with, and two days to spare.
 */
export const TOTALS_KEPT_MIN_MS = 62 * 86_400_000;

/** What one day's totals hold: `{operator}:{kind}:{measure}` → a sum. */
export type DayTotals = Readonly<Record<string, number>>;

export const TOTAL_MEASURES = [
  "paid_xaf",
  "paid_count",
  "failed_xaf",
  "failed_count",
  "fees_xaf",
] as const;
export type TotalMeasure = (typeof TOTAL_MEASURES)[number];

export function totalsField(
  payout: Pick<Payout, "operator" | "kind">,
  measure: TotalMeasure,
): string {
  return `${payout.operator}:${payout.kind}:${measure}`;
}

/** What counting `payout` (in a counted state) adds to its day's totals. */
export function totalsOf(
  payout: Pick<Payout, "operator" | "kind" | "state" | "amount" | "fee">,
): Record<string, number> {
  if (payout.state !== "success") {
    return {
      [totalsField(payout, "failed_xaf")]: payout.amount,
      [totalsField(payout, "failed_count")]: 1,
    };
  }
  return {
    [totalsField(payout, "paid_xaf")]: payout.amount,
    [totalsField(payout, "paid_count")]: 1,
    [totalsField(payout, "fees_xaf")]: chargedFee(payout) ?? 0,
  };
}

/** The instant a payout in a counted state is counted at: when it settled. */
export function countedAtMs(payout: Pick<Payout, "settledAtMs" | "createdAtMs">): number {
  return payout.settledAtMs ?? payout.createdAtMs;
}

/** `a` with `b` added, field by field. */
export function addTotals(a: DayTotals, b: DayTotals): Record<string, number> {
  const sum: Record<string, number> = { ...a };
  for (const [field, value] of Object.entries(b)) sum[field] = (sum[field] ?? 0) + value;
  return sum;
}
