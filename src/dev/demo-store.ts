/**
 * Where the demo keeps its state: the Redis at REDIS_URL when one answers within a second
 * (under a key prefix of its own, removed on exit), else the in-memory stores. `npm start`
 * never falls back like this: a bot that forgot payouts on restart would lose money.
 */
import { Redis } from "ioredis";
import { type Logger, redactUrlCredentials } from "../logger.js";
import { createMemoryStores } from "../store/memory.js";
import { createRedisConnection, dropPrefix, waitForReady } from "../store/redis/connection.js";
import type { Stores } from "../store/types.js";

/** How long the demo waits for Redis before it runs in memory. */
const REDIS_PROBE_TIMEOUT_MS = 1000;

export interface DemoStorage {
  readonly kind: "redis" | "memory";
  /** One line for the banner: which store, and what happens to its data. */
  readonly description: string;
  /** The in-memory stores to hand to startApp; undefined: startApp connects to Redis. */
  readonly stores: Stores | undefined;
  /** Deletes the demo's keys (Redis) and closes the connection; call after the app stopped. */
  close(): Promise<void>;
}

async function quit(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/**
 * True when Redis at `url` answers PING within `timeoutMs`. One attempt, no retries, and a
 * short `disconnectTimeout`: ioredis otherwise keeps a failed socket's 2 s timer alive,
 * which holds the process open after the demo ends.
 */
async function redisAnswers(url: string, timeoutMs: number, logger: Logger): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    disconnectTimeout: 100,
  });
  probe.on("error", (error: Error) => logger.debug({ err: error }, "demo redis probe failed"));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answer = probe.connect().then(
    async () => (await probe.ping()) === "PONG",
    () => false,
  );
  try {
    return await Promise.race([answer.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
    probe.disconnect();
  }
}

/** Opens a connection, deletes every key under `keyPrefix`, and closes it. */
async function dropDemoKeys(redisUrl: string, keyPrefix: string, logger: Logger): Promise<void> {
  const redis = createRedisConnection(redisUrl, { logger });
  try {
    await waitForReady(redis, 5000);
    const dropped = await dropPrefix(redis, keyPrefix);
    logger.info({ dropped, keyPrefix }, "demo keys deleted");
  } finally {
    await quit(redis);
  }
}

/**
 * Picks the store: Redis at `redisUrl` if it answers within `REDIS_PROBE_TIMEOUT_MS` (the
 * app then connects to it itself, under `keyPrefix`), else memory.
 */
export async function chooseDemoStorage(options: {
  redisUrl: string;
  keyPrefix: string;
  retentionMs: number;
  /** TIME_ZONE: the day a settled payout is counted on. */
  timeZone: string;
  logger: Logger;
}): Promise<DemoStorage> {
  const { redisUrl, keyPrefix, logger } = options;
  const shown = redactUrlCredentials(redisUrl);
  if (!(await redisAnswers(redisUrl, REDIS_PROBE_TIMEOUT_MS, logger))) {
    logger.info({ redis: shown }, "no Redis for the demo; using the in-memory store");
    return {
      kind: "memory",
      description: `No Redis at ${shown}: running on an in-memory store; nothing is kept after exit.`,
      stores: createMemoryStores({ retentionMs: options.retentionMs, timeZone: options.timeZone }),
      close: async () => {},
    };
  }
  return {
    kind: "redis",
    description: `Redis at ${shown}, keys under ${keyPrefix} (deleted on exit).`,
    stores: undefined,
    close: () => dropDemoKeys(redisUrl, keyPrefix, logger),
  };
}
