/**
 * The Redis limiter (rate-limit.lua) and the memory one (takeSlidingWindowSlot)
 * decide the same for any sequence of people's and background grants (a window long
 * enough that nothing leaves it), and neither ever lets the whole window pass the limit,
 * background work past limit − leave, or background work into the last ⌈leave/3⌉.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalRateLimiter } from "../../../src/payments/local-rate-limiter.js";
import { MemorySlotLogs } from "../../../src/store/memory/slot-logs.js";
import { RedisRateLimiter } from "../../../src/store/redis/rate-limiter.js";
import { dropPrefix, testPrefix, testRedis } from "../../support/redis.js";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("the rate limiters agree", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("Redis and memory grant alike, within every bound", async () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const random = rng(seed);
      const limit = 3 + Math.floor(random() * 12);
      const leave = Math.floor(random() * (limit + 1));
      const prefix = testPrefix("rl-agree");
      const r = new RedisRateLimiter({ redis, key: `${prefix}k`, limit, windowMs: 600_000 });
      const m = new LocalRateLimiter({ limit, windowMs: 600_000, now: () => 1_000_000 });
      const slots = new MemorySlotLogs(() => 1_000_000);
      let whole = 0;
      let background = 0;
      for (let step = 0; step < limit * 3; step += 1) {
        const isBackground = random() < 0.6;
        const l = isBackground ? leave : 0;
        const a = await r.tryAcquire(l);
        const b = await m.tryAcquire(l);
        const c = slots.take(r.shared(l));
        expect({ seed, step, redis: a.granted }).toEqual({ seed, step, redis: b.granted });
        expect(c).toBe(b.granted);
        if (a.granted) {
          whole += 1;
          if (isBackground && leave > 0) background += 1;
          if (isBackground && leave > 0) {
            expect(whole).toBeLessThanOrEqual(Math.max(1, limit - Math.ceil(leave / 3)));
          }
        }
        expect(whole).toBeLessThanOrEqual(limit);
        if (leave > 0) expect(background).toBeLessThanOrEqual(Math.max(1, limit - leave));
      }
      await dropPrefix(redis, prefix);
    }
  });
});
