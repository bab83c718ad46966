/**
 * Client-side limit on outgoing Payment API requests (100/min sandbox, 300/min
 * production). The interface is tiny so a process-local limiter (unit tests, the demo)
 * and a Redis one shared by every replica (src/store/redis/rate-limiter.ts) fit it.
 */

export type Acquisition = { granted: true } | { granted: false; retryInMs: number };

/**
 * Where a limiter shared through Redis keeps its grants: enough for a store to take a slot
 * in the same atomic step as another write, and so in the same round trip (a claim and its
 * request's slot, a callback's admission and its re-read's). `limit` already leaves what
 * the caller must leave to others.
 */
export interface SharedSlot {
  key: string;
  limit: number;
  windowMs: number;
}

export interface RateLimiter {
  /**
   * Takes one request slot now if the limit allows, else says how long to wait. With
   * `leave`, only while that many slots of the window stay free for others (a batch leaves
   * a share of the limit to interactive /pay).
   */
  tryAcquire(leave?: number): Promise<Acquisition>;
  /**
   * The same limit as a SharedSlot (leaving `leave` to others), for a store to take a slot
   * in a step of its own; absent on a limiter no store can reach (one in memory).
   */
  shared?(leave?: number): SharedSlot;
}
