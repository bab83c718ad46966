/**
 * Rate-limit slots taken by the memory stores' moves (TransitionOptions.slot, a callback's
 * admission), as lua/includes/rate-limit.lua takes them: one sliding-window log per limit's
 * key (and one for its background work's grants), shared by every memory store of a set.
 */
import { takeSlidingWindowSlot, type WindowLog } from "../../payments/local-rate-limiter.js";
import type { SharedSlot } from "../../payments/rate-limiter.js";

export class MemorySlotLogs {
  /** Grant times by the log's key, oldest first. */
  readonly #logs = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** True when the slot's limits (SharedSlot) allow a grant now: one is taken. */
  take(slot: SharedSlot): boolean {
    const logs: WindowLog[] = [{ grantedAtMs: this.#log(slot.key), limit: slot.limit }];
    if (slot.backgroundLimit !== undefined) {
      logs.push({ grantedAtMs: this.#log(`${slot.key}:background`), limit: slot.backgroundLimit });
    }
    return takeSlidingWindowSlot(logs, slot.windowMs, this.#now()) === 0;
  }

  #log(key: string): number[] {
    let log = this.#logs.get(key);
    if (!log) {
      log = [];
      this.#logs.set(key, log);
    }
    return log;
  }
}
