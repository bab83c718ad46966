/**
 * The outbox in process memory: the due queue of notices whose claim of the next notice
 * reads the payout of a payer's settled notice with it, and whether its number is saved, as
 * lua/outbox-claim.lua does.
 */
import type { Payout } from "../../model/payout.js";
import { SETTLED_NOTICE_PREFIX } from "../payout-codec.js";
import type { ClaimedNotice, Outbox } from "../types.js";
import { MemoryDueQueue } from "./due-queue.js";

export class MemoryOutbox extends MemoryDueQueue implements Outbox {
  readonly #payout: (id: string) => Promise<Payout | null>;
  readonly #isSaved: (phone: string) => Promise<boolean>;

  /**
   * `payout`: the payout store's read; `isSaved`: the address book's (both made after the
   * outbox, so late-bound).
   */
  constructor(
    payout: (id: string) => Promise<Payout | null>,
    isSaved: (phone: string) => Promise<boolean>,
  ) {
    super();
    this.#payout = payout;
    this.#isSaved = isSaved;
  }

  async claimNext(nowMs: number, leaseMs: number): Promise<ClaimedNotice | null> {
    const [key] = await this.claimDue(nowMs, 1, leaseMs);
    if (key === undefined) return null;
    if (!key.startsWith(SETTLED_NOTICE_PREFIX)) return { key };
    const payout = await this.#payout(key.slice(SETTLED_NOTICE_PREFIX.length));
    if (payout === null) return { key, payout };
    return { key, payout, numberSaved: await this.#isSaved(payout.phone) };
  }
}
