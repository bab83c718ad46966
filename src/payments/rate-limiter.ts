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
   * a share of the limit to interactive /pay).
   */
  tryAcquire(leave?: number): Promise<Acquisition>;
}
