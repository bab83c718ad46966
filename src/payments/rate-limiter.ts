/**
 * Client-side limit on outgoing Payment API requests (100/min sandbox, 300/min
 * production). The interface is tiny so a process-local limiter (unit tests, the demo)
 * and a Redis one shared by every replica (src/store/redis/rate-limiter.ts) fit it.
 */

export type Acquisition = { granted: true } | { granted: false; retryInMs: number };

/**
 * Where a limiter shared through Redis keeps its grants: enough for a store to take a slot
 * in the same atomic step as another write, and so in the same round trip (a claim and its
 * request's slot, a callback's admission and its re-read's).
 */
export interface SharedSlot {
  key: string;
  /** Grants allowed in any window, everyone's together. */
  limit: number;
  windowMs: number;
  /**
   * Set for background work, which leaves others a share: its own grants allowed in any
   * window (they count in `limit` too). Absent for a person's request.
   */
  backgroundLimit?: number;
}

export interface RateLimiter {
  /**
   * Takes one request slot now if the limit allows, else says how long to wait. With
   * `leave` (background work: a batch, callback re-reads, polls), the slot is background
   * work's, granted only while background grants in the window number fewer than the limit
   * less `leave`: that many stay for people (interactive /pay), whatever background work
   * does. People's grants count against the whole limit only, so they do not shrink
   * background work's share.
   */
  tryAcquire(leave?: number): Promise<Acquisition>;
  /**
   * The same limit as a SharedSlot (leaving `leave` to others), for a store to take a slot
   * in a step of its own; absent on a limiter no store can reach (one in memory).
   */
  shared?(leave?: number): SharedSlot;
}

/** Background work's own grants per window: the limit less what it leaves others, at least 1. */
export function backgroundLimit(limit: number, leave: number): number {
  return Math.max(1, limit - leave);
}
