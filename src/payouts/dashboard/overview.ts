/**
 * The Mini App's Overview: the last 30 days as paid volume per day by operator, the success
 * rate and fees, and what needs a person (pending too long, unknown, waiting for approval).
 * The figures come from the days' settled totals the store keeps as payouts settle
 * (model/totals.ts): the payouts that reached a final state the API gave on each of the 30
 * days (TIME_ZONE), one read of 30 small hashes whatever the number of payouts. What needs a
 * person is counted from the state sets, of which only the oldest few are read whole. A person who may not see everyone's payouts gets their
 * own only (payouts/policy.ts).
 */
import type { Payout } from "../../model/payout.js";
import type { DayTotals } from "../../model/totals.js";
import type { Stores } from "../../store/types.js";
import { dayOf } from "../../time.js";
import { type Asker, may, maySee } from "../policy.js";

export const OVERVIEW_DAYS = 30;
/** Items listed under "needs a person" per kind; the count says how many there are. */
const ATTENTION_LIST = 20;

export interface DayVolume {
  /** YYYY-MM-DD in TIME_ZONE. */
  day: string;
  /** Paid disbursements (XAF) by operator. */
  mtn: number;
  orange: number;
}

export interface AttentionItem {
  id: string;
  state: Payout["state"];
  amount: number;
  phone: string;
  recipientName: string;
  createdAtMs: number;
}

export interface Overview {
  days: DayVolume[];
  paidXaf: number;
  paidCount: number;
  /** Final payouts that succeeded, of all final ones sent to the API (null: none). */
  successRate: number | null;
  feesXaf: number;
  attention: {
    stuck: { count: number; items: AttentionItem[] };
    unknown: { count: number; items: AttentionItem[] };
    awaitingApproval: { count: number; items: AttentionItem[] };
  };
}

function item(payout: Payout): AttentionItem {
  const { id, state, amount, phone, recipientName, createdAtMs } = payout;
  return { id, state, amount, phone, recipientName, createdAtMs };
}

async function attentionOf(
  stores: Stores,
  state: "pending" | "unknown" | "awaiting_approval",
  asker: NonNullable<Asker>,
  leftBeforeMs?: number,
) {
  const { count, items } = await stores.payouts.oldestInState(state, {
    limit: ATTENTION_LIST,
    ...(may(asker, "see_everyone") ? {} : { userId: asker.userId }),
    ...(leftBeforeMs === undefined ? {} : { leftBeforeMs }),
  });
  return { count, items: items.filter((payout) => maySee(asker, payout)).map(item) };
}

/** The Overview's figures from the days' settled totals (model/totals.ts). */
function summed(dayList: readonly string[], totals: readonly DayTotals[]) {
  const days = dayList.map((day): DayVolume => ({ day, mtn: 0, orange: 0 }));
  let paidXaf = 0;
  let paidCount = 0;
  let feesXaf = 0;
  let finals = 0;
  let successes = 0;
  totals.forEach((sums, index) => {
    const day = days[index];
    for (const [field, value] of Object.entries(sums)) {
      const [operator, kind, measure] = field.split(":");
      if (measure === "fees_xaf") feesXaf += value;
      if (measure === "failed_count") finals += value;
      if (measure === "paid_count") {
        finals += value;
        successes += value;
        if (kind === "disbursement") paidCount += value;
      }
      if (measure === "paid_xaf" && kind === "disbursement") {
        paidXaf += value;
        if (day && (operator === "mtn" || operator === "orange")) day[operator] += value;
      }
    }
  });
  return { days, paidXaf, paidCount, feesXaf, finals, successes };
}

export async function overviewFor(
  options: { stores: Stores; timeZone: string; stuckAfterMs: number; now: () => number },
  asker: Asker,
): Promise<Overview> {
  const { stores, timeZone } = options;
  const nowMs = options.now();
  const fromMs = nowMs - OVERVIEW_DAYS * 86_400_000;
  const dayList: string[] = [];
  for (let ms = fromMs + 86_400_000; ms <= nowMs + 1; ms += 86_400_000) {
    const day = dayOf(Math.min(ms, nowMs), timeZone);
    if (!dayList.includes(day)) dayList.push(day);
  }
  const none = { count: 0, items: [] };
  if (asker === null) {
    const empty = { days: summed(dayList, []).days, paidXaf: 0, paidCount: 0, feesXaf: 0 };
    return {
      ...empty,
      successRate: null,
      attention: { stuck: none, unknown: none, awaitingApproval: none },
    };
  }
  // Someone who may not see everyone's payouts reads their own totals and lists.
  const own = may(asker, "see_everyone") ? undefined : asker.userId;
  const stuckBefore = nowMs - options.stuckAfterMs;
  const [totals, stuck, unknown, awaitingApproval] = await Promise.all([
    stores.payouts.settledTotals(dayList, own),
    attentionOf(stores, "pending", asker, stuckBefore),
    attentionOf(stores, "unknown", asker),
    attentionOf(stores, "awaiting_approval", asker),
  ]);
  const { days, paidXaf, paidCount, feesXaf, finals, successes } = summed(dayList, totals);
  return {
    days: days.sort((a, b) => a.day.localeCompare(b.day)),
    paidXaf,
    paidCount,
    successRate: finals === 0 ? null : successes / finals,
    feesXaf,
    attention: { stuck, unknown, awaitingApproval },
  };
}
