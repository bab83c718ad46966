/**
 * The API's rate limit as we model it (the spec gives the numbers, not the rules): a
 * sliding 60-second window per API key over every API endpoint. Only accepted requests
 * count, so a client that backs off as told by `Retry-After` gets in when it returns.
 */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #hits = new Map<string, number[]>();

  /** `limit` requests per `windowMs` per key; 0 means no limit. */
  constructor(limit: number, windowMs = RATE_LIMIT_WINDOW_MS) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /**
   * Counts a request for `key` at `nowMs` when the window has room and returns 0;
   * otherwise counts nothing and returns the seconds until a slot frees (at least 1).
   */
  take(key: string, nowMs: number): number {
    if (this.#limit === 0) return 0;
    const hits = this.#hits.get(key) ?? [];
    const windowStart = nowMs - this.#windowMs;
    let expired = 0;
    while (expired < hits.length && (hits[expired] ?? 0) <= windowStart) expired++;
    if (expired > 0) hits.splice(0, expired);
    this.#hits.set(key, hits);
    if (hits.length < this.#limit) {
      hits.push(nowMs);
      return 0;
    }
    const oldest = hits[0] ?? nowMs;
    return Math.max(1, Math.ceil((oldest + this.#windowMs - nowMs) / 1000));
  }

  clear(): void {
    this.#hits.clear();
  }
}
