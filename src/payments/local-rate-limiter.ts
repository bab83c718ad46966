/**
 * A sliding-window-log rate limiter in this process's memory: at most `limit` grants in any
 * `windowMs`. For one process (the demo, tests); replicas share src/store/redis-rate-limiter.ts.
 */
import type { Acquisition, RateLimiter } from "./rate-limiter.js";

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
  async tryAcquire(): Promise<Acquisition> {
    const nowMs = this.now();
    // A grant at t leaves the window at t + windowMs, the moment a new one may take its place.
    while (this.grantedAtMs.length > 0 && (this.grantedAtMs[0] ?? nowMs) <= nowMs - this.windowMs) {
      this.grantedAtMs.shift();
    }
    if (this.grantedAtMs.length < this.limit) {
      this.grantedAtMs.push(nowMs);
      return { granted: true };
    }
    const oldestMs = this.grantedAtMs[0] ?? nowMs;
    return { granted: false, retryInMs: Math.max(1, oldestMs + this.windowMs - nowMs) };
  }
}
