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
  /** Grants the whole window may hold for this one to be granted (everyone's together). */
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
   * `leave`, the slot is background work's (a batch, callback re-reads, polls), held to
   * grantLimits: over a window, `leave` slots stay for people (interactive /pay) whatever
   * background work does, and a third of them stays free at every moment, so people's
   * requests arriving together do not wait behind it. People's grants count against the
   * whole limit only, so they do not shrink background work's share.
   */
  tryAcquire(leave?: number): Promise<Acquisition>;
  /**
   * The same limit as a SharedSlot (leaving `leave` to others), for a store to take a slot
   * in a step of its own; absent on a limiter no store can reach (one in memory).
   */
  shared?(leave?: number): SharedSlot;
  /** Grants in the window now, everyone's (the metrics' slots used), and the limit. */
  usage?(): Promise<{ used: number; limit: number }>;
}

/**
 * The limits a grant is held to: a person's, the whole limit; background work's (leaving
 * `leave` to people), its own grants in the window fewer than the limit less `leave`, and
 * the whole window's fewer than the limit less a third of `leave` (at least 1 each).
 */
export function grantLimits(
  limit: number,
  leave: number,
): { limit: number; backgroundLimit?: number } {
  if (leave <= 0) return { limit };
  return {
    limit: Math.max(1, limit - Math.ceil(leave / 3)),
    backgroundLimit: Math.max(1, limit - leave),
  };
}
