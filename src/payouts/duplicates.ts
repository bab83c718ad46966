/**
 * The duplicate rule (DUPLICATE_WINDOW_MINUTES): a payout repeats an earlier one of the same
 * kind and amount to the same number, made within the window by anyone, that paid, may have
 * paid, or is on its way (not one that paid nothing, nor a prompt nobody confirmed). The
 * payer's prompt and the approver's card and Approve ask the same question here, so that the
 * second check sees what the first one saw.
 */
import { givesBack } from "../model/lifecycle.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import type { StepContext } from "./types.js";

/** Payouts to a number read at a time, and the most read. */
const DUPLICATE_PAGE = 10;
const DUPLICATE_LOOKBACK = 100;

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
   * The latest payout `question` repeats, counted back from now, among the latest 100 to
   * that number; undefined when there is none (or the rule is off).
   */
  async latest(question: DuplicateQuestion): Promise<Payout | undefined> {
    if (this.#windowMs <= 0) return undefined;
    const sinceMs = this.#context.now() - this.#windowMs;
    // Newest first, a page at a time: a number paid all day long costs a page, not the day.
    for (let offset = 0; offset < DUPLICATE_LOOKBACK; offset += DUPLICATE_PAGE) {
      const page = { sinceMs, offset, limit: DUPLICATE_PAGE };
      const recent = await this.#context.stores.payouts.listByPhone(question.phone, page);
      const found = recent.find(
        (payout) =>
          payout.id !== question.id &&
          payout.amount === question.amount &&
          payout.kind === question.kind &&
          payout.state !== "awaiting_confirmation" &&
          !givesBack(payout.state),
      );
      if (found || recent.length < DUPLICATE_PAGE) return found;
    }
    return undefined;
  }
}
