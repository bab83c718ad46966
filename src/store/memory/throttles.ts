/** Fixed-window counters by name, in process memory. */
import type { ThrottleStore } from "../types.js";

export class MemoryThrottleStore implements ThrottleStore {
  readonly #windows = new Map<string, { count: number; endsAtMs: number }>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async take(name: string, limit: number, windowMs: number): Promise<boolean> {
    return this.takeNow(name, limit, windowMs);
  }

  /** `take` in the caller's own synchronous step (a payout move's press, memory store). */
  takeNow(name: string, limit: number, windowMs: number): boolean {
    const nowMs = this.#now();
    const open = this.#windows.get(name);
    const window = open && open.endsAtMs > nowMs ? open : { count: 0, endsAtMs: nowMs + windowMs };
    window.count += 1;
    this.#windows.set(name, window);
    // Ended windows go as others are counted, so the map stays as small as the live ones.
    for (const [other, { endsAtMs }] of this.#windows) {
      if (endsAtMs <= nowMs) this.#windows.delete(other);
    }
    return window.count <= limit;
  }
}
