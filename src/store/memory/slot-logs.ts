/**
 * Rate-limit slots taken by the memory stores' moves (TransitionOptions.slot, a callback's
 * admission), as lua/includes/rate-limit.lua takes them: one sliding-window log per limit's
 * key, shared by every memory store of a set.
 */
import { takeSlidingWindowSlot } from "../../payments/local-rate-limiter.js";
import type { SharedSlot } from "../../payments/rate-limiter.js";

export class MemorySlotLogs {
  readonly #logs = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** True when a slot of `slot`'s limit was free, and is now taken. */
  take(slot: SharedSlot): boolean {
    const log = this.#logs.get(slot.key) ?? [];
    this.#logs.set(slot.key, log);
    return takeSlidingWindowSlot(log, slot.limit, slot.windowMs, this.#now()) === 0;
  }
}
