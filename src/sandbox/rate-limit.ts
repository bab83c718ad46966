/**
 * The API's rate limit as we model it (the spec gives the numbers, not the rules): a
 * sliding 60-second window per API key over every API endpoint. Only accepted requests
 * count, so a client that backs off as told by `Retry-After` gets in when it returns.
 */

const RATE_LIMIT_WINDOW_MS = 60_000;

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
    let hits = this.#hits.get(key);
    if (!hits) {
      hits = [];
      this.#hits.set(key, hits);
    }
    // Hits older than the window no longer count.
    while (hits.length > 0 && (hits[0] ?? nowMs) <= nowMs - this.#windowMs) hits.shift();
    if (hits.length < this.#limit) {
      hits.push(nowMs);
      return 0;
    }
    const freesAtMs = (hits[0] ?? nowMs) + this.#windowMs;
    return Math.max(1, Math.ceil((freesAtMs - nowMs) / 1000));
  }

  clear(): void {
    this.#hits.clear();
  }
}
