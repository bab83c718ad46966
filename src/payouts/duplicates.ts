/**
 * The duplicate warning's one look-up: the latest payout of an amount to a number within
 * DUPLICATE_WINDOW_MINUTES, read from the store's per-number index. `/pay` warns with it;
 * a batch's rows are checked with it too (see batch-repeats.ts).
 */
import { givesBack } from "../model/lifecycle.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import type { PayoutStore } from "../store/types.js";

/** Payouts to a number read at a time, and the most read. */
const DUPLICATE_PAGE = 10;
const DUPLICATE_LOOKBACK = 100;

/**
 * The latest payout of `amount` to `phone` of the same kind, made since `sinceMs` by
 * anyone, that paid, may have paid, or is on its way (not one that paid nothing, nor a
 * prompt nobody confirmed), among the latest 100 to that number; `skip` leaves some out
 * (a batch's own rows).
 */
export async function latestDuplicate(
  payouts: PayoutStore,
  query: { phone: string; amount: number; kind: PayoutKind; sinceMs: number },
  skip: (payout: Payout) => boolean = () => false,
): Promise<Payout | undefined> {
  // Newest first, a page at a time: a number paid all day long costs a page, not the day.
  for (let offset = 0; offset < DUPLICATE_LOOKBACK; offset += DUPLICATE_PAGE) {
    const page = { sinceMs: query.sinceMs, offset, limit: DUPLICATE_PAGE };
    const recent = await payouts.listByPhone(query.phone, page);
    const found = recent.find(
      (payout) =>
        payout.amount === query.amount &&
        payout.kind === query.kind &&
        payout.state !== "awaiting_confirmation" &&
        !givesBack(payout.state) &&
        !skip(payout),
    );
    if (found || recent.length < DUPLICATE_PAGE) return found;
  }
  return undefined;
}
