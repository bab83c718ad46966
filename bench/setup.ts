/**
 * What every benchmark is given (mode, Redis), and the Redis helpers they share: a
 * unique key prefix per run and its removal afterwards.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { PaymentClient } from "../src/payments/client.js";
import { createRedisConnection, dropPrefix, waitForReady } from "../src/store/redis/connection.js";

export interface BenchContext {
  /** `--quick`: a few seconds per benchmark, to check they still run (CI). */
  quick: boolean;
  /**
   * `--shard-cpu=<share>`: each shard's CPU budget in `merchants-shards`, a share of one
   * core; default there 0.02.
   */
  shardCpu?: number;
  redisUrl: string;
  /** Progress lines on stderr, so stdout holds only the table. */
  log(message: string): void;
}

/** Where a benchmark reaches a Payment API (a sandbox) and with which key. */
export interface PaymentApiEndpoint {
  url: string;
  apiKey: string;
}

/** REDIS_URL, or the local default the bot itself uses. */
export function benchRedisUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.REDIS_URL?.trim();
  return url === undefined || url === "" ? "redis://127.0.0.1:6379" : url;
}

/** A connected client; throws a message that says how to get Redis when none answers. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = createRedisConnection(url);
  try {
    await waitForReady(redis, 3000);
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `No Redis answers at ${url}. Start one (e.g. \`redis-server --port 6379\` or ` +
        "`docker run -p 6379:6379 redis:7`) or set REDIS_URL, then run `npm run bench` again.",
      { cause: error },
    );
  }
  return redis;
}

/** A key prefix no other run or test uses, e.g. `bench:pay:1a2b3c4d:`. */
function benchPrefix(label: string): string {
  return `bench:${label}:${randomUUID().slice(0, 8)}:`;
}

/** Runs `work` with a fresh prefix and a client, and removes the prefix's keys after. */
export async function withPrefix<T>(
  context: BenchContext,
  label: string,
  work: (redis: Redis, prefix: string) => Promise<T>,
): Promise<T> {
  const redis = await connectRedis(context.redisUrl);
  const prefix = benchPrefix(label);
  try {
    return await work(redis, prefix);
  } finally {
    await dropPrefix(redis, prefix).catch(() => 0);
    redis.disconnect();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Disburses one payment at `api` (a sandbox that keeps it pending) for a benchmark to read;
 * resolves with its id.
 */
export async function pendingPayment(api: PaymentApiEndpoint): Promise<string> {
  const client = new PaymentClient({ baseUrl: api.url, apiKey: api.apiKey });
  try {
    return (await client.disburse({ amount: 1000, phoneNumber: "237670000001" })).id;
  } finally {
    await client.close();
  }
}
