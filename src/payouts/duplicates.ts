/**
 * The duplicate rule (DUPLICATE_WINDOW_MINUTES): a payout repeats an earlier one of the same
 * kind and amount to the same number, made within the window by anyone, that paid, may have
 * paid, or is on its way (not one that paid nothing, nor a prompt nobody confirmed). The
 * payer's prompt, the approver's card and Approve, and a batch's rows (batch/repeats.ts) ask
 * the same question here, so that every second check sees what the first one saw.
 */
import { givesBack, PAYOUT_STATES, type PayoutState } from "../model/lifecycle.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import type { PayoutStore } from "../store/types.js";
import type { StepContext } from "./types.js";

/** The most payouts to a number looked at, newest first. */
const DUPLICATE_LOOKBACK = 100;

/** The states the rule does not count: paid nothing, or a prompt nobody confirmed. */
const NOT_COUNTED: readonly PayoutState[] = [
  "awaiting_confirmation",
  ...PAYOUT_STATES.filter((state) => givesBack(state)),
];

/**
 * The latest payout of `amount` to `phone` of the same kind, made since `sinceMs`, that the
 * rule counts, among the latest 100 to that number; `skip` leaves some out (the payout
 * itself, a batch's own rows by their ids' prefix). One step in the store.
 */
export async function latestDuplicate(
  payouts: PayoutStore,
  query: { phone: string; amount: number; kind: PayoutKind; sinceMs: number },
  skip: { id?: string | undefined; idPrefix?: string | undefined } = {},
): Promise<Payout | undefined> {
  const found = await payouts.latestRepeat({
    ...query,
    lookback: DUPLICATE_LOOKBACK,
    excludedStates: NOT_COUNTED,
    skipId: skip.id,
    skipIdPrefix: skip.idPrefix,
  });
  return found ?? undefined;
}

/** What a payout is compared on; `id`: the payout itself, never its own duplicate. */
export interface DuplicateQuestion {
  id?: string;
  phone: string;
  amount: number;
  kind: PayoutKind;
}

export class Duplicates {
  readonly #context: StepContext;
  readonly #windowMs: number;

  /** `windowMs`: DUPLICATE_WINDOW_MINUTES in ms; 0 turns the rule off. */
  constructor(context: StepContext, windowMs: number) {
    this.#context = context;
    this.#windowMs = windowMs;
  }

  /**
   * True when `seenAtMs` (the client's word for the repeated payout it showed: that
   * payout's creation time) covers `duplicate`. The word is bounded: a time in the future,
   * or older than the window (no payout that old counts), is no word at all, so a stale or
   * forged value cannot wave through a repeat nobody was shown.
   */
  seen(duplicate: Payout, seenAtMs: number | undefined): boolean {
    if (seenAtMs === undefined) return false;
    const nowMs = this.#context.now();
    if (seenAtMs > nowMs || seenAtMs < nowMs - this.#windowMs) return false;
    return duplicate.createdAtMs <= seenAtMs;
  }

  /** The latest payout `question` repeats, counted back from now; undefined when none. */
  async latest(question: DuplicateQuestion): Promise<Payout | undefined> {
    if (this.#windowMs <= 0) return undefined;
    const sinceMs = this.#context.now() - this.#windowMs;
    return latestDuplicate(
      this.#context.stores.payouts,
      { phone: question.phone, amount: question.amount, kind: question.kind, sinceMs },
      { id: question.id },
    );
  }
}
