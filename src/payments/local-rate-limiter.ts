/**
 * A sliding-window-log rate limiter in this process's memory: at most `limit` grants in any
 * `windowMs`. For one process (the demo, tests); replicas share src/store/redis/rate-limiter.ts.
 */
import { type Acquisition, grantLimits, type RateLimiter } from "./rate-limiter.js";

/** One sliding-window log: the times of its grants still in the window, oldest first. */
export interface WindowLog {
  grantedAtMs: number[];
  /** Grants it allows in any window. */
  limit: number;
}

/**
 * One step of sliding-window logs sharing a window, as lua/includes/rate-limit.lua takes it:
 * grants that left the window are dropped from each log (in place); when every log holds
 * fewer than its limit, the grant is recorded at `nowMs` in each and 0 is returned;
 * otherwise nothing is recorded and the result is the ms (≥ 1) until every full log's
 * oldest grant has left the window. (Background work takes from two logs: the whole limit's
 * and its own; see RateLimiter.)
 */
export function takeSlidingWindowSlot(
  logs: readonly WindowLog[],
  windowMs: number,
  nowMs: number,
): number {
  // A grant at t leaves the window at t + windowMs, the moment a new one may take its place.
  const windowStartMs = nowMs - windowMs;
  let waitMs = 0;
  for (const { grantedAtMs, limit } of logs) {
    let expired = 0;
    while (expired < grantedAtMs.length && (grantedAtMs[expired] ?? nowMs) <= windowStartMs) {
      expired += 1;
    }
    if (expired > 0) grantedAtMs.splice(0, expired);
    if (grantedAtMs.length >= limit) {
      const oldestMs = grantedAtMs[0] ?? nowMs;
      waitMs = Math.max(waitMs, 1, oldestMs + windowMs - nowMs);
    }
  }
  if (waitMs > 0) return waitMs;
  for (const { grantedAtMs } of logs) grantedAtMs.push(nowMs);
  return 0;
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
  /** Times of the grants still inside the window, oldest first: everyone's, background work's. */
  private readonly grantedAtMs: number[] = [];
  private readonly backgroundAtMs: number[] = [];

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

  /**
   * Grants when fewer than `limit` grants happened in the last `windowMs`; with `leave`
   * (background work), as grantLimits says (see RateLimiter).
   */
  async tryAcquire(leave = 0): Promise<Acquisition> {
    const limits = grantLimits(this.limit, leave);
    const logs: WindowLog[] = [{ grantedAtMs: this.grantedAtMs, limit: limits.limit }];
    if (limits.backgroundLimit !== undefined) {
      logs.push({ grantedAtMs: this.backgroundAtMs, limit: limits.backgroundLimit });
    }
    const retryInMs = takeSlidingWindowSlot(logs, this.windowMs, this.now());
    return retryInMs === 0 ? { granted: true } : { granted: false, retryInMs };
  }

  async usage(): Promise<{ used: number; limit: number }> {
    const sinceMs = this.now() - this.windowMs;
    const used = this.grantedAtMs.filter((atMs) => atMs > sinceMs).length;
    return { used, limit: this.limit };
  }
}
