import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { limiterWindowMs, RedisRateLimiter } from "../../../../src/store/redis/rate-limiter.js";
import { dropPrefix, testPrefix, testRedis } from "../../../support/redis.js";

describe("RedisRateLimiter", () => {
  let redisA: Redis;
  let redisB: Redis;
  let prefix: string;

  beforeAll(() => {
    redisA = testRedis();
    redisB = testRedis();
  });

  afterEach(async () => {
    await dropPrefix(redisA, prefix);
  });

  afterAll(async () => {
    await redisA.quit();
    await redisB.quit();
  });

  it("shares one limit between two connections and never exceeds it in any window", async () => {
    prefix = testPrefix("rate");
    const key = `${prefix}api`;
    const limit = 20;
    const windowMs = 1_000;
    const limiters = [redisA, redisB].map(
      (redis) => new RedisRateLimiter({ redis, key, limit, windowMs }),
    );
    // Redis-clock times of every grant, from both processes' point of view.
    const grantsAtMs: number[] = [];
    const runForMs = 2_500;
    const stopAt = Date.now() + runForMs;
    async function hammer(limiter: RedisRateLimiter): Promise<void> {
      while (Date.now() < stopAt) {
        const acquisition = await limiter.tryAcquire();
        if (acquisition.granted) grantsAtMs.push(acquisition.atMs);
        else
          await new Promise((resolve) => setTimeout(resolve, Math.min(acquisition.retryInMs, 5)));
      }
    }
    // Four concurrent callers per connection, so requests from both interleave in Redis.
    await Promise.all(limiters.flatMap((limiter) => [1, 2, 3, 4].map(() => hammer(limiter))));

    grantsAtMs.sort((a, b) => a - b);
    for (let index = limit; index < grantsAtMs.length; index++) {
      const spanMs = (grantsAtMs[index] ?? 0) - (grantsAtMs[index - limit] ?? 0);
      expect(
        spanMs,
        `grants ${index - limit}..${index} within ${spanMs} ms`,
      ).toBeGreaterThanOrEqual(windowMs);
    }
    // 2.5 s is 2.5 windows: up to 60 grants; together they used most of it.
    const allowed = Math.floor((runForMs / windowMs) * limit);
    expect(grantsAtMs.length).toBeGreaterThanOrEqual(Math.floor(allowed * 0.8));
    expect(grantsAtMs.length).toBeLessThanOrEqual(allowed + limit);
  });

  it("tells a refused caller how long until the oldest grant leaves the window", async () => {
    prefix = testPrefix("rate");
    const limiter = new RedisRateLimiter({
      redis: redisA,
      key: `${prefix}api`,
      limit: 2,
      windowMs: 5_000,
    });
    const first = await limiter.tryAcquire();
    await limiter.tryAcquire();
    const refused = await limiter.tryAcquire();
    expect(refused.granted).toBe(false);
    if (!refused.granted) {
      expect(refused.retryInMs).toBe(first.atMs + 5_000 - refused.atMs);
      expect(refused.retryInMs).toBeGreaterThan(0);
    }
  });

  it("sets an expiry on its key so it does not linger", async () => {
    prefix = testPrefix("rate");
    const key = `${prefix}api`;
    const limiter = new RedisRateLimiter({ redis: redisA, key, limit: 5, windowMs: 3_000 });
    await limiter.tryAcquire();
    const ttlMs = await redisA.pttl(key);
    expect(ttlMs).toBeGreaterThan(0);
    expect(ttlMs).toBeLessThanOrEqual(3_000);
  });

  it.each([
    { key: "", limit: 1, windowMs: 1 },
    { key: "k", limit: 0, windowMs: 1 },
    { key: "k", limit: 1, windowMs: 0.5 },
  ])("refuses bad options %j at construction", (options) => {
    prefix = testPrefix("rate");
    expect(() => new RedisRateLimiter({ redis: redisA, ...options })).toThrow(TypeError);
  });
});

describe("limiterWindowMs", () => {
  it("is the API's 60 s window plus a margin, 1 s by default", () => {
    expect(limiterWindowMs()).toBe(61_000);
    expect(limiterWindowMs(2_500)).toBe(62_500);
  });
});
