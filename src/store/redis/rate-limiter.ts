/**
 * One Payment API rate limit shared by every process, through Redis: a sliding-window log
 * (one sorted-set member per grant, scored by its time) checked and updated in one Lua
 * script (lua/rate-limit-take.lua), so two replicas can never both take the last slot. The script reads the clock
 * with Redis's own `TIME`, so the replicas' clocks, however far apart, do not matter.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  type Acquisition,
  grantLimits,
  type RateLimiter,
  type SharedSlot,
} from "../../payments/rate-limiter.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** The API's own window (spec section 8: requests per minute). */
export const API_WINDOW_MS = 60_000;

/**
 * The window to give the limiter for the API's per-minute limit: 60 s plus `marginMs`
 * (default 1 s, giving 61 000 ms). The API counts its 60 s from when requests ARRIVE, a
 * little after we granted them, and that delay varies: a request granted at t that is slow
 * on the wire and one granted at t + 60 s that is fast can reach the API less than 60 s
 * apart, which with a full window is one request too many and a 429. The margin must exceed
 * the spread of request latencies (and any difference in how the two sides round the edges
 * of the window); it costs under 2% of the throughput.
 */
export function limiterWindowMs(marginMs = 1000): number {
  return API_WINDOW_MS + marginMs;
}

const ScriptReplySchema = z.tuple([z.union([z.literal(0), z.literal(1)]), z.number(), z.number()]);

/** An Acquisition with the Redis-clock time (ms) at which it was decided. */
export type TimedAcquisition = Acquisition & { atMs: number };

export interface RedisRateLimiterOptions {
  redis: RedisClient;
  /** The sorted set; every process sharing the limit uses the same key. */
  key: string;
  /** Grants allowed in any window. */
  limit: number;
  /** Length of the sliding window; for the Payment API use `limiterWindowMs()`. */
  windowMs: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  private readonly redis: RedisClient;
  private readonly instanceId = randomUUID();
  private sequence = 0;

  /** Throws a TypeError for an empty key or a limit/window that is not a whole number ≥ 1. */
  constructor(options: RedisRateLimiterOptions) {
    const problems: string[] = [];
    if (options.key === "") problems.push("key must not be empty");
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
      problems.push(`limit must be a whole number ≥ 1 (got ${options.limit})`);
    }
    if (!Number.isSafeInteger(options.windowMs) || options.windowMs < 1) {
      problems.push(`windowMs must be a whole number ≥ 1 (got ${options.windowMs})`);
    }
    if (problems.length > 0) throw new TypeError(`RedisRateLimiter: ${problems.join("; ")}`);
    this.redis = options.redis;
    this.key = options.key;
    this.limit = options.limit;
    this.windowMs = options.windowMs;
  }

  /** This limit, leaving `leave` to others, for a store script to take a slot from. */
  shared(leave = 0): SharedSlot {
    return { key: this.key, windowMs: this.windowMs, ...grantLimits(this.limit, leave) };
  }

  /**
   * Grants in the last window by every process, counted on this process's clock (the
   * script's is Redis's: they differ by the clocks' skew, which is fine for a gauge).
   */
  async usage(): Promise<{ used: number; limit: number }> {
    const used = await this.redis.zcount(this.key, Date.now() - this.windowMs, "+inf");
    return { used, limit: this.limit };
  }

  /**
   * Grants when fewer than `limit` grants (by any process) happened in the last `windowMs`
   * of Redis time (with `leave`, background work's, as grantLimits says); else says how long
   * until the grant in the way leaves the window. Redis errors are thrown as they are.
   */
  async tryAcquire(leave = 0): Promise<TimedAcquisition> {
    this.sequence += 1;
    // Unique per call, so two grants in the same millisecond are two members, not one.
    const member = `${this.instanceId}:${this.sequence}`;
    const limits = grantLimits(this.limit, leave);
    const reply = ScriptReplySchema.safeParse(
      await runScript(
        this.redis,
        SCRIPTS["rate-limit-take"],
        [this.key],
        [String(limits.limit), String(this.windowMs), member, limits.backgroundLimit ?? ""],
      ),
    );
    if (!reply.success) {
      throw new Error(`RedisRateLimiter: unexpected script reply: ${reply.error.message}`);
    }
    const [granted, retryInMs, atMs] = reply.data;
    return granted === 1 ? { granted: true, atMs } : { granted: false, retryInMs, atMs };
  }
}
