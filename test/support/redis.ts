import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { dropPrefix } from "../../src/store/redis/connection.js";

/** Deletes every key under `prefix` (tests leave nothing behind). */
export { dropPrefix };

import { inject } from "vitest";

/** The Redis URL the global setup found or started. */
export function testRedisUrl(): string {
  return inject("redisUrl");
}

/** A fresh key prefix, so tests can share one Redis and run in parallel. */
export function testPrefix(label = "t"): string {
  return `test:${label}:${randomUUID().slice(0, 8)}:`;
}

/** A connected client for tests; call `dropPrefix` and `quit` in afterEach/afterAll. */
export function testRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
}

/** Deletes every key under `prefix` on the test Redis, with a connection of its own. */
export async function dropTestPrefix(prefix: string): Promise<void> {
  const redis = testRedis();
  await dropPrefix(redis, prefix);
  await redis.quit();
}
