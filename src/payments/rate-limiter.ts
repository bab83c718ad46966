/**
 * Client-side limit on outgoing Payment API requests (100/min sandbox, 300/min
 * production). The interface is tiny so a process-local limiter (unit tests, the demo)
 * and a Redis one shared by every replica (src/store/redis/rate-limiter.ts) fit it.
 */

export type Acquisition = { granted: true } | { granted: false; retryInMs: number };

export interface RateLimiter {
  /**
   * Takes one request slot now if the limit allows, else says how long to wait. With
   * `leave`, only while that many slots of the window stay free for others (a batch leaves
   * a share of the limit to interactive /pay), and no faster than the limit's own pace
   * (see `paceOf`): background work spread over the window frees a slot every
   * window / limit, so a slot a person takes from the reserve is given back within a few
   * of those instead of a whole window later.
   */
  tryAcquire(leave?: number): Promise<Acquisition>;
}

/**
 * The pace of work that leaves `leave` slots to others: at most `leave` grants (by anyone)
 * in any `leave × windowMs / limit` ms, i.e. the limit's own mean rate, in bursts of at most
 * `leave`. Without it a batch takes a window's slots in one burst at its start, and every
 * window after that its grants come back in the same burst: the reserve is then all a
 * person can have for a whole window. Paced, grants (and so the slots they free) come
 * every window / limit, and a slot taken from the reserve is made good by the background
 * skipping the next one. None (count 0) when nothing is left to others.
 */
export function paceOf(
  leave: number,
  limit: number,
  windowMs: number,
): { count: number; windowMs: number } {
  if (leave <= 0) return { count: 0, windowMs: 0 };
  return { count: leave, windowMs: Math.ceil((leave * windowMs) / limit) };
}
