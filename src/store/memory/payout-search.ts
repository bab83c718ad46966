/**
 * The history search's reads in memory (PayoutStore.findByWords and listByStatus), over the
 * live records as the Redis indexes answer them: the same words (model/search.ts), the same
 * status groups, newest first. Memory holds no index of words, so it is never too broad.
 */
import type { Payout } from "../../model/payout.js";
import { searchWordsOf, statusGroupOf, wordsMatch } from "../../model/search.js";
import type { StatusListOptions, WordMatches, WordQuery } from "../types.js";

function newestFirst(a: Payout, b: Payout): number {
  return b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function inPeriod(payout: Payout, fromMs: number, toMs: number, cutoffMs: number): boolean {
  return payout.createdAtMs >= Math.max(fromMs, cutoffMs) && payout.createdAtMs <= toMs;
}

export function wordMatches(
  payouts: readonly Payout[],
  cutoffMs: number,
  query: WordQuery,
): WordMatches {
  if (query.words.length === 0 || query.limit <= 0) return { outcome: "too_broad" };
  const matching = payouts
    .filter((payout) => inPeriod(payout, query.fromMs, query.toMs, cutoffMs))
    .filter((payout) => wordsMatch(searchWordsOf(payout), query.words))
    .sort(newestFirst);
  const offset = query.offset ?? 0;
  return {
    outcome: "found",
    items: matching.slice(offset, offset + query.limit),
    complete: matching.length <= offset + query.limit,
    exact: true,
    total: matching.length,
  };
}

export function statusGroupPage(
  payouts: readonly Payout[],
  cutoffMs: number,
  options: StatusListOptions,
): { items: Payout[]; total: number } {
  const matching = payouts
    .filter((payout) => options.userId === undefined || payout.initiatorId === options.userId)
    .filter((payout) => statusGroupOf(payout.state) === options.status)
    .filter((payout) => inPeriod(payout, options.fromMs, options.toMs, cutoffMs))
    .sort(newestFirst);
  const items =
    options.limit <= 0 ? [] : matching.slice(options.offset, options.offset + options.limit);
  return { items, total: matching.length };
}
