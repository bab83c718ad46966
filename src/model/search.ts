/**
 * What the history search matches a payout by, apart from its indexes by number, id and
 * person: the words of its recipient's name, its note and the alias it was paid by, folded
 * as aliases are (decomposed, accents dropped, lower case), and the status group its state
 * reads as in the filters. Both are written with the payout and moved with its state in the
 * stores' atomic steps, so a search reads an index instead of the records.
 */
import type { PayoutState } from "./lifecycle.js";
import type { Payout } from "./payout.js";

/** A payout's words indexed at most (a note is at most 140 characters). */
export const MAX_SEARCH_WORDS = 40;
/** A word longer than this is indexed (and looked for) by its start only. */
export const MAX_WORD_LENGTH = 32;

const WORD = /[\p{L}\p{Nd}]+/gu;

/** `text` folded as an alias key is: `Aïcha NGONO` → `aicha ngono`. */
export function foldText(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** The distinct folded words of `text`, in order, each cut to MAX_WORD_LENGTH. */
export function wordsOf(text: string): string[] {
  const words = (foldText(text).match(WORD) ?? []).map((word) => word.slice(0, MAX_WORD_LENGTH));
  return [...new Set(words)];
}

/** The words a payout is found by: its recipient's name, its note, its alias. */
export function searchWordsOf(
  payout: Pick<Payout, "recipientName" | "note" | "recipientAlias">,
): string[] {
  const text = [payout.recipientName, payout.note ?? "", payout.recipientAlias ?? ""].join(" ");
  return wordsOf(text).slice(0, MAX_SEARCH_WORDS);
}

/**
 * Whether a payout with `words` (searchWordsOf) answers a search for `wanted` (wordsOf the
 * query): each word looked for begins one of its words, in any order. `ngo ai` finds
 * `Aïcha Ngono`.
 */
export function wordsMatch(words: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((query) => words.some((word) => word.startsWith(query)));
}

export const STATUS_GROUPS = ["paid", "failed", "pending", "unknown", "waiting", "other"] as const;
export type StatusGroup = (typeof STATUS_GROUPS)[number];

const GROUP_OF: Record<PayoutState, StatusGroup> = {
  success: "paid",
  failed: "failed",
  canceled: "failed",
  rejected_by_api: "failed",
  submitting: "pending",
  pending: "pending",
  unknown: "unknown",
  awaiting_approval: "waiting",
  awaiting_confirmation: "other",
  cancelled: "other",
  expired: "other",
  rejected: "other",
};

/** How a payout's state reads in the history's status filter (and the page's badges). */
export function statusGroupOf(state: PayoutState): StatusGroup {
  return GROUP_OF[state];
}
