/**
 * The Mini App's Overview: today's paid volume, the last 30 days as paid volume per day by
 * operator, the success rate, failed volume and fees, the same figures for the 30 days before
 * (to show each one's change), and what needs a person (pending too long, unknown, waiting for
 * approval). The figures come from the days' settled totals the store keeps as payouts settle
 * (model/totals.ts): the payouts that reached a final state the API gave on each of the 60
 * days (TIME_ZONE), one read of 60 small hashes whatever the number of payouts. What needs a
 * person is counted from the state sets, of which only the oldest few are read whole. A person who may not see everyone's payouts gets their
 * own only (payouts/policy.ts).
 */
import type { Payout } from "../../model/payout.js";
import type { DayTotals } from "../../model/totals.js";
import type { Stores } from "../../store/types.js";
import { dayOf } from "../../time.js";
import { type Asker, may, maySee } from "../policy.js";

export const OVERVIEW_DAYS = 30;
/** The days read: the 30 shown and the 30 before them, compared with. */
const READ_DAYS = 2 * OVERVIEW_DAYS;
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

/** A period's figures: disbursements only, but the success rate counts every kind. */
export interface PeriodFigures {
  paidXaf: number;
  paidCount: number;
  /** Final payouts that succeeded, of all final ones sent to the API (null: none). */
  successRate: number | null;
  /** Disbursements that failed, were canceled or refused by the API (their amounts). */
  failedXaf: number;
  failedCount: number;
}

export interface Overview {
  days: DayVolume[];
  paidXaf: number;
  paidCount: number;
  /** Final payouts that succeeded, of all final ones sent to the API (null: none). */
  successRate: number | null;
  feesXaf: number;
  /** The last 30 days' failed disbursements (XAF, and how many). */
  failedXaf: number;
  failedCount: number;
  /** What was paid today (TIME_ZONE), disbursements. */
  today: { paidXaf: number; paidCount: number };
  /** The 30 days before the last 30; null when nothing settled in them (nothing to compare). */
  previous: PeriodFigures | null;
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

/** A period's sums from its days' settled totals (model/totals.ts). */
function summed(totals: readonly DayTotals[]) {
  let paidXaf = 0;
  let paidCount = 0;
  let failedXaf = 0;
  let failedCount = 0;
  let feesXaf = 0;
  let finals = 0;
  let successes = 0;
  for (const sums of totals) {
    for (const [field, value] of Object.entries(sums)) {
      const [, kind, measure] = field.split(":");
      const paying = kind === "disbursement";
      if (measure === "fees_xaf") feesXaf += value;
      if (measure === "failed_count") {
        finals += value;
        if (paying) failedCount += value;
      }
      if (measure === "failed_xaf" && paying) failedXaf += value;
      if (measure === "paid_count") {
        finals += value;
        successes += value;
        if (paying) paidCount += value;
      }
      if (measure === "paid_xaf" && paying) paidXaf += value;
    }
  }
  const successRate = finals === 0 ? null : successes / finals;
  return { paidXaf, paidCount, failedXaf, failedCount, feesXaf, finals, successRate };
}

/** Each day's paid disbursements by operator. */
function volumes(dayList: readonly string[], totals: readonly DayTotals[]): DayVolume[] {
  return dayList.map((day, index): DayVolume => {
    const volume = { day, mtn: 0, orange: 0 };
    for (const [field, value] of Object.entries(totals[index] ?? {})) {
      const [operator, kind, measure] = field.split(":");
      if (measure !== "paid_xaf" || kind !== "disbursement") continue;
      if (operator === "mtn" || operator === "orange") volume[operator] += value;
    }
    return volume;
  });
}

/** The last `count` local days up to today's (TIME_ZONE), oldest first. */
function lastDays(nowMs: number, timeZone: string, count: number): string[] {
  const dayList: string[] = [];
  for (let ms = nowMs - (count - 1) * 86_400_000; ms <= nowMs + 1; ms += 86_400_000) {
    const day = dayOf(Math.min(ms, nowMs), timeZone);
    if (!dayList.includes(day)) dayList.push(day);
  }
  return dayList.sort();
}

export async function overviewFor(
  options: { stores: Stores; timeZone: string; stuckAfterMs: number; now: () => number },
  asker: Asker,
): Promise<Overview> {
  const { stores, timeZone } = options;
  const nowMs = options.now();
  const dayList = lastDays(nowMs, timeZone, READ_DAYS);
  const shownFrom = Math.max(0, dayList.length - OVERVIEW_DAYS);
  const none = { count: 0, items: [] };
  if (asker === null) {
    return {
      days: volumes(dayList.slice(shownFrom), []),
      paidXaf: 0,
      paidCount: 0,
      successRate: null,
      feesXaf: 0,
      failedXaf: 0,
      failedCount: 0,
      today: { paidXaf: 0, paidCount: 0 },
      previous: null,
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
  const shown = totals.slice(shownFrom);
  const last = summed(shown);
  const before = summed(totals.slice(0, shownFrom));
  const today = summed(totals.slice(-1));
  return {
    days: volumes(dayList.slice(shownFrom), shown),
    paidXaf: last.paidXaf,
    paidCount: last.paidCount,
    successRate: last.successRate,
    feesXaf: last.feesXaf,
    failedXaf: last.failedXaf,
    failedCount: last.failedCount,
    today: { paidXaf: today.paidXaf, paidCount: today.paidCount },
    previous:
      before.finals === 0
        ? null
        : {
            paidXaf: before.paidXaf,
            paidCount: before.paidCount,
            successRate: before.successRate,
            failedXaf: before.failedXaf,
            failedCount: before.failedCount,
          },
    attention: { stuck, unknown, awaitingApproval },
  };
}
