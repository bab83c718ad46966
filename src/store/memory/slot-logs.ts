/**
 * Rate-limit slots taken by the memory stores' moves (TransitionOptions.slot, a callback's
 * admission), as lua/includes/rate-limit.lua takes them: one sliding-window log per limit's
 * key, shared by every memory store of a set. (The stores know only the limiter's interface,
 * so the window is kept here as the script keeps it, not borrowed from LocalRateLimiter.)
 */
import type { SharedSlot } from "../../payments/rate-limiter.js";

export class MemorySlotLogs {
  /** Grant times by the limit's key, oldest first. */
  readonly #logs = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** True when fewer than `slot.limit` grants are in its window now: one is taken. */
  take(slot: SharedSlot): boolean {
    const nowMs = this.#now();
    // A grant at t leaves the window at t + windowMs, as the script's ZREMRANGEBYSCORE.
    const log = (this.#logs.get(slot.key) ?? []).filter((atMs) => atMs > nowMs - slot.windowMs);
    const granted = log.length < slot.limit;
    if (granted) log.push(nowMs);
    this.#logs.set(slot.key, log);
    return granted;
  }
}
