/**
 * The digest's picture: the paid volume of the last seven days (the digest's day and the
 * six before it, in TIME_ZONE), by operator. "Paid" means what the digest's totals count
 * as Completed: disbursements that reached `success`, on the day they were created (the
 * same day the text's totals put them on, so the chart and the text agree). Read page by
 * page, never a week at once.
 */
import type { TelecomOperator } from "../../model/payment-terms.js";
import type { Stores } from "../../store/types.js";
import { type Day, dayOf, daysWindow, nextDay } from "../../time.js";

/** Days a digest's chart shows, the digest's own day last. */
export const CHART_DAYS = 7;
const PAGE_SIZE = 500;

export interface WeekVolume {
  /** Oldest first; the digest's day last. */
  days: Day[];
  /** Whole XAF paid per day (same order as `days`), for every operator, even one with none. */
  byOperator: Record<TelecomOperator, number[]>;
}

/** The `CHART_DAYS` days ending with `day`, oldest first. */
export function chartDays(day: Day): Day[] {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  const first = new Date(Date.UTC(year, month - 1, date - (CHART_DAYS - 1)))
    .toISOString()
    .slice(0, 10);
  const days = [first];
  while (days.length < CHART_DAYS) days.push(nextDay(days.at(-1) ?? first));
  return days;
}

/** The week's paid volume by operator, up to `nowMs` (a digest sent during its day). */
export async function weekVolume(
  stores: Pick<Stores, "payouts">,
  options: { day: Day; timeZone: string; nowMs: number },
): Promise<WeekVolume> {
  const days = chartDays(options.day);
  const { fromMs, toMs: endMs } = daysWindow(days[0] ?? options.day, options.day, options.timeZone);
  const window = { fromMs, toMs: Math.min(endMs, options.nowMs) };
  const zeros = () => days.map(() => 0);
  const byOperator: Record<TelecomOperator, number[]> = { mtn: zeros(), orange: zeros() };
  const index = new Map(days.map((day, at) => [day, at]));
  let after: string | undefined;
  do {
    const page = await stores.payouts.listCreated({ ...window, limit: PAGE_SIZE, after });
    for (const payout of page.items) {
      if (payout.kind !== "disbursement" || payout.state !== "success") continue;
      const at = index.get(dayOf(payout.createdAtMs, options.timeZone));
      const series = byOperator[payout.operator];
      if (at === undefined) continue;
      series[at] = (series[at] ?? 0) + payout.amount;
    }
    after = page.next;
  } while (after !== undefined);
  return { days, byOperator };
}
