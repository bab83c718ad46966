/**
 * The listings of MemoryPayoutStore, over its live payouts, in the orders and pages the
 * Redis indexes give: newest first by creation time then id, or oldest first with a
 * `{ms}:{id}` cursor. Pure: the store passes the payouts and the retention's cutoff.
 */
import type { PayoutState } from "../model/lifecycle.js";
import type { Payout } from "../model/payout.js";
import type {
  CreatedPage,
  CreatedPageOptions,
  PayoutListOptions,
  StatePageOptions,
} from "./types.js";

/** Redis's ZREVRANGE order: score (createdAtMs) descending, then id descending. */
export function newestFirst(a: Payout, b: Payout): number {
  if (a.createdAtMs !== b.createdAtMs) return b.createdAtMs - a.createdAtMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function slice<T>(items: readonly T[], offset: number, limit: number): T[] {
  return items.slice(offset, offset + Math.max(limit, 0));
}

/** Payouts to `phone` created at `cutoffMs` or later, newest first, one page. */
export function byPhonePage(
  payouts: readonly Payout[],
  phone: string,
  cutoffMs: number,
  page: { offset: number; limit: number },
): Payout[] {
  const matching = payouts
    .filter((payout) => payout.phone === phone && payout.createdAtMs >= cutoffMs)
    .sort(newestFirst);
  return slice(matching, page.offset, page.limit);
}

/** One page of history (everyone's, or one initiator's), newest first, and the total. */
export function listPage(
  payouts: readonly Payout[],
  cutoffMs: number,
  options: PayoutListOptions,
): { items: Payout[]; total: number } {
  const matching = payouts
    .filter((payout) => options.userId === undefined || payout.initiatorId === options.userId)
    .filter((payout) => payout.createdAtMs >= cutoffMs)
    .sort(newestFirst);
  return { items: slice(matching, options.offset, options.limit), total: matching.length };
}

/** Oldest first, from `fromMs` to `toMs`, after the cursor `after`; `next` when full. */
export function createdPage(
  payouts: readonly Payout[],
  cutoffMs: number,
  options: CreatedPageOptions,
): CreatedPage {
  const [afterMs, afterId] = (options.after ?? "").split(":");
  const isAfter = (payout: Payout) =>
    options.after === undefined ||
    payout.createdAtMs > Number(afterMs) ||
    (payout.createdAtMs === Number(afterMs) && payout.id > (afterId ?? ""));
  const page = payouts
    .filter((payout) => payout.createdAtMs >= Math.max(options.fromMs, cutoffMs))
    .filter((payout) => payout.createdAtMs <= options.toMs && isAfter(payout))
    .sort((a, b) => -newestFirst(a, b))
    .slice(0, options.limit);
  const last = page.at(-1);
  return page.length === options.limit && last
    ? { items: page, next: `${last.createdAtMs}:${last.id}` }
    : { items: page };
}

/** A page of the payouts in `state`, in id order; the cursor is the last id of the page before. */
export function statePage(
  payouts: readonly Payout[],
  state: PayoutState,
  options: StatePageOptions,
): CreatedPage {
  const { after } = options;
  const rest = payouts
    .filter((payout) => payout.state === state && (after === undefined || payout.id > after))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const items = rest.slice(0, Math.max(1, options.limit));
  const last = items.at(-1);
  return rest.length > items.length && last ? { items, next: last.id } : { items };
}
