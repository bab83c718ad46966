/**
 * A sliding-window-log rate limiter in this process's memory: at most `limit` grants in any
 * `windowMs`. For one process (the demo, tests); replicas share src/store/redis/rate-limiter.ts.
 */
import type { Acquisition, RateLimiter } from "./rate-limiter.js";

/**
 * One step of a sliding-window log. `grantedAtMs` holds the times of earlier grants, oldest
 * first, and is updated in place: grants that left the window are dropped, and when fewer
 * than `limit` remain one is recorded at `nowMs` and 0 is returned; otherwise nothing is
 * recorded and the result is the ms (≥ 1) until the oldest grant leaves the window.
 */
export function takeSlidingWindowSlot(
  grantedAtMs: number[],
  limit: number,
  windowMs: number,
  nowMs: number,
): number {
  // A grant at t leaves the window at t + windowMs, the moment a new one may take its place.
  const windowStartMs = nowMs - windowMs;
  let expired = 0;
  while (expired < grantedAtMs.length && (grantedAtMs[expired] ?? nowMs) <= windowStartMs) {
    expired += 1;
  }
  if (expired > 0) grantedAtMs.splice(0, expired);
  if (grantedAtMs.length < limit) {
    grantedAtMs.push(nowMs);
    return 0;
  }
  const oldestMs = grantedAtMs[0] ?? nowMs;
  return Math.max(1, oldestMs + windowMs - nowMs);
}

export interface LocalRateLimiterOptions {
  /** Grants allowed in any window. */
  limit: number;
  /** Length of the sliding window. */
  windowMs: number;
  /** Clock, in ms; `Date.now` by default (tests pass a fake one). */
  now?: () => number;
}

export class LocalRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  /** Times of the grants still inside the window, oldest first. */
  private readonly grantedAtMs: number[] = [];

  /** Throws a TypeError when `limit` or `windowMs` is not a positive whole number. */
  constructor(options: LocalRateLimiterOptions) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
      throw new TypeError(
        `LocalRateLimiter: limit must be a whole number ≥ 1 (got ${options.limit})`,
      );
    }
    if (!Number.isSafeInteger(options.windowMs) || options.windowMs < 1) {
      throw new TypeError(
        `LocalRateLimiter: windowMs must be a whole number ≥ 1 (got ${options.windowMs})`,
      );
    }
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.now = options.now ?? Date.now;
  }

  /** Grants when fewer than `limit` grants happened in the last `windowMs`. */
  async tryAcquire(leave = 0): Promise<Acquisition> {
    const retryInMs = takeSlidingWindowSlot(
      this.grantedAtMs,
      Math.max(1, this.limit - leave),
      this.windowMs,
      this.now(),
    );
    return retryInMs === 0 ? { granted: true } : { granted: false, retryInMs };
  }
}
