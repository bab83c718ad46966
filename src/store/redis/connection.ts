/**
 * The Redis connection, configured for money: created, awaited, pinged, closed.
 *
 * Why these options: with an offline queue, a payout command issued while Redis is down
 * would wait for minutes and then run when nobody expects it any more. Instead commands
 * fail fast (the user is told to try again) while the connection keeps reconnecting with
 * a capped backoff on its own. A command in flight when the connection drops may be resent
 * by ioredis after the reconnect; the payout store's `claimId` makes that harmless.
 */
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import { type Logger, silentLogger } from "../../logger.js";
import {
  type ClusterTarget,
  ioredisUrl,
  type RedisTarget,
  targetOptions,
  urlTarget,
} from "./target.js";

/**
 * A connection to the bot's Redis: one server (a URL or Sentinel's primary) or a Redis
 * Cluster. The stores take either: every script and transaction of theirs touches the keys
 * of one merchant, which share a hash tag and so one slot (store/keys.ts).
 */
export type RedisClient = Redis | Cluster;

/** Every primary's own connection: one for a single server, each master's on a cluster. */
export function primaries(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

export interface RedisConnectionOptions {
  logger?: Logger;
  /** Time to establish a connection; default 5000. */
  connectTimeoutMs?: number;
  /** A command without an answer after this rejects; default 5000. */
  commandTimeoutMs?: number;
  /**
   * Longest pause between reconnection attempts; default 5000, 1000 with Sentinel (each
   * attempt asks the sentinels first, so the new primary is found within a second of a
   * failover).
   */
  maxReconnectDelayMs?: number;
}

/** Reconnection delay after `attempt` failures: 100, 200, 400 … ms, capped. */
export function reconnectDelayMs(attempt: number, maxMs: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(attempt - 1, 0), 16), maxMs);
}

/**
 * An ioredis client for `target` (a URL, or a Sentinel-named primary) that fails fast when
 * Redis is unreachable (no offline queue, one retry per command, 5 s connect and command
 * timeouts) and reconnects forever with capped backoff. Connection errors are logged,
 * never thrown unhandled. Commands sent before the connection is ready fail: await
 * `waitForReady` first. `duplicate()` gives another connection with the same options.
 */
export function createRedisConnection(
  target: Exclude<RedisTarget, ClusterTarget> | string,
  options?: RedisConnectionOptions,
): Redis;
export function createRedisConnection(
  target: RedisTarget | string,
  options?: RedisConnectionOptions,
): RedisClient;
export function createRedisConnection(
  target: RedisTarget | string,
  options: RedisConnectionOptions = {},
): RedisClient {
  const logger = options.logger ?? silentLogger;
  const where = typeof target === "string" ? urlTarget(target) : target;
  if (where.kind === "cluster") return createClusterConnection(where, options, logger);
  const maxDelayMs = options.maxReconnectDelayMs ?? (where.kind === "sentinel" ? 1000 : 5000);
  const redisOptions: RedisOptions = {
    ...targetOptions(where),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    commandTimeout: options.commandTimeoutMs ?? 5000,
    retryStrategy: (attempt) => reconnectDelayMs(attempt, maxDelayMs),
    // A primary demoted by a failover refuses writes (READONLY) while its old clients stay
    // connected: reconnect, which asks the sentinels where the primary is now. The failed
    // command is not resent (a payout write is retried by its caller, claim id and all).
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 1 : false),
    // Commands issued in the same tick go out in one write: an update makes dozens.
    enableAutoPipelining: true,
  };
  const redis =
    where.kind === "url" ? new Redis(ioredisUrl(where.url), redisOptions) : new Redis(redisOptions);
  let healthy = false;
  redis.on("ready", () => {
    healthy = true;
    logger.info("redis ready");
  });
  redis.on("error", (error: Error) => {
    // Reconnection attempts fail every few seconds while Redis is down: one warning per
    // outage at warn level, the repeats at debug.
    const level = healthy ? "warn" : "debug";
    healthy = false;
    logger[level]({ err: error }, "redis connection error");
  });
  redis.on("reconnecting", (delayMs: number) => logger.debug({ delayMs }, "redis reconnecting"));
  return redis;
}

/**
 * A Redis Cluster client with the same fail-fast behaviour: no offline queue on the
 * cluster (a command while no slot map is known fails at once), one retry per command on
 * a node, the same timeouts. A node lost is not reconnected to by itself: the client reads
 * the slot map again (a replica promoted by the failover takes its slots) and follows
 * MOVED and ASK redirections (a slot migrated). Reads go to primaries only: a replica may
 * lag, and a payout read must see its own claim.
 */
function createClusterConnection(
  target: ClusterTarget,
  options: RedisConnectionOptions,
  logger: Logger,
): Cluster {
  const maxDelayMs = options.maxReconnectDelayMs ?? 1000;
  const clusterOptions: ClusterOptions = {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    scaleReads: "master",
    clusterRetryStrategy: (attempt) => reconnectDelayMs(attempt, maxDelayMs),
    // A failover (`cluster-node-timeout`, then an election) takes a few seconds: commands
    // sent meanwhile are retried on the new slot map for this long, then fail.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshTimeout: 2000,
    redisOptions: {
      password: target.password,
      maxRetriesPerRequest: 1,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      commandTimeout: options.commandTimeoutMs ?? 5000,
      ...(target.tls ? { tls: {} } : {}),
    },
  };
  const cluster = new Cluster(
    target.nodes.map(({ host, port }) => ({ host, port })),
    clusterOptions,
  );
  let healthy = false;
  cluster.on("ready", () => {
    healthy = true;
    logger.info("redis cluster ready");
  });
  cluster.on("error", (error: Error) => {
    const level = healthy ? "warn" : "debug";
    healthy = false;
    logger[level]({ err: error }, "redis cluster connection error");
  });
  cluster.on("+node", (node: Redis) => node.on("error", () => {})); // the cluster logs it
  return cluster;
}

/**
 * Resolves once `redis` is ready for commands; rejects after `timeoutMs`, or at once when
 * the connection was closed for good.
 */
export async function waitForReady(redis: RedisClient, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  if (redis.status === "end") throw new Error("Redis connection is closed");
  if (redis.status === "wait") redis.connect().catch(() => {});
  await new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("end", onEnd);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onEnd = () => {
      cleanup();
      reject(new Error("Redis connection closed before it was ready"));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis was not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    redis.on("ready", onReady);
    redis.on("end", onEnd);
  });
}

/** True when PING answers PONG within `timeoutMs`. */
export async function pingWithin(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const answer = redis.ping().then(
      (reply) => reply === "PONG",
      () => false,
    );
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** QUIT lets replies in flight arrive; when the connection is down, just drop it. */
export async function closeConnection(redis: RedisClient): Promise<void> {
  if (redis.status === "end") return;
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/**
 * Deletes every key under `prefix`, in batches (SCAN, never KEYS); returns how many. On a
 * cluster every primary is scanned, and keys are deleted one by one (a DEL of many keys
 * must stay within one slot; these may be several merchants').
 */
export async function dropPrefix(redis: RedisClient, prefix: string): Promise<number> {
  let dropped = 0;
  for (const node of primaries(redis)) {
    await forEachKey(node, `${prefix}*`, async (found) => {
      if (redis instanceof Cluster) {
        const counts = await Promise.all(found.map((key) => redis.del(key)));
        dropped += counts.reduce((sum, count) => sum + count, 0);
      } else dropped += await redis.del(...found);
    });
  }
  return dropped;
}

/** Calls `page` with each page of keys matching `pattern` on one server (SCAN). */
export async function forEachKey(
  node: Redis,
  pattern: string,
  page: (keys: string[]) => Promise<void>,
): Promise<void> {
  let cursor = "0";
  do {
    const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    if (found.length > 0) await page(found);
  } while (cursor !== "0");
}
