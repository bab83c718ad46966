/**
 * The composition root's storage: the Redis connection (with its durable-writes plan) and
 * the rate limiters, shared by every replica through that Redis.
 */
import type { Config } from "./config/index.js";
import type { Logger } from "./logger.js";
import { LocalRateLimiter } from "./payments/local-rate-limiter.js";
import type { RateLimiter } from "./payments/rate-limiter.js";
import { StartupError } from "./startup-checks.js";
import { keys } from "./store/keys.js";
import type { RedisClient } from "./store/redis/connection.js";
import { closeConnection, createRedisConnection, waitForReady } from "./store/redis/connection.js";
import { type DurabilityPlan, RedisDurability } from "./store/redis/durability.js";
import { indexStoredPayouts } from "./store/redis/payout-search.js";
import { limiterWindowMs, RedisRateLimiter } from "./store/redis/rate-limiter.js";
import { countStoredPayouts } from "./store/redis/settled-totals.js";
import { describeTarget } from "./store/redis/target.js";
import { createRedisStores } from "./store/redis.js";
import type { Stores } from "./store/types.js";

/** How long an approval card is remembered after its payout could last be decided. */
const CARD_KEPT_AFTER_EXPIRY_MS = 2 * 86_400_000;

/**
 * One Redis connection set: the connection every store uses and, with REDIS_DURABILITY on,
 * the durable-writes plan on a connection of its own. The merchants front opens one set and
 * lends it to every merchant's runtime (their keys differ by prefix, not by connection), so a
 * deployment holds one or two connections (per shard, on a cluster), whatever its merchants.
 */
export interface RedisConnections {
  readonly redis: RedisClient;
  readonly durability: { plan: RedisDurability; connection: RedisClient } | undefined;
  /** Stops the plan and quits both connections. */
  close(): Promise<void>;
}

/** Connects to `config.redis.target` (and starts the durable-writes plan); StartupError if not. */
export async function connectRedis(config: Config, logger: Logger): Promise<RedisConnections> {
  const { target } = config.redis;
  const redis = createRedisConnection(target, { logger });
  try {
    await waitForReady(redis, 10_000);
  } catch (error) {
    redis.disconnect();
    const fix =
      target.kind === "url"
        ? "fix REDIS_URL"
        : target.kind === "cluster"
          ? "check REDIS_CLUSTER_NODES"
          : "check REDIS_SENTINELS";
    throw new StartupError(
      `Redis at ${describeTarget(target)} is not reachable; start Redis or ${fix}.`,
      { cause: error },
    );
  }
  const durability = await startDurability(config, redis, logger);
  return {
    redis,
    durability,
    close: async () => {
      if (durability) {
        durability.plan.stop();
        await closeConnection(durability.connection);
      }
      await closeConnection(redis);
    },
  };
}

/**
 * The stores on Redis, and `backfill`, which starts the one-time backfills in the
 * background: called once the tracker's resume is done, so the two never run together.
 * On `borrowed` connections (a merchant's runtime), the stores' `close()` leaves them open.
 */
export async function connectStores(
  config: Config,
  logger: Logger,
  borrowed?: RedisConnections,
): Promise<{
  stores: Stores;
  redis: RedisClient;
  /** True when the connections are lent by a front (they outlive these stores). */
  borrowed: boolean;
  backfill: () => void;
  /** The durable-writes plan now (for the metrics); undefined when REDIS_DURABILITY is off. */
  durability: (() => DurabilityPlan) | undefined;
}> {
  const { redis, durability } = borrowed ?? (await connectRedis(config, logger));
  const stores = createRedisStores(redis, {
    prefix: config.redis.keyPrefix,
    retentionMs: config.retentionMs,
    timeZone: config.timeZone,
    // Cards are edited once decided, and replied to with a reason a while after.
    approvalCardTtlMs: config.rules.approvalTtlMs + CARD_KEPT_AFTER_EXPIRY_MS,
    logger,
    durability,
    borrowed: borrowed !== undefined,
  });
  const plan = durability?.plan;
  return {
    stores,
    redis,
    borrowed: borrowed !== undefined,
    backfill: () => backfill(redis, config, logger),
    durability: plan ? () => plan.plan : undefined,
  };
}

/**
 * The durable-write plan on a connection of its own (REDIS_DURABILITY=auto or local), read from the
 * server now; a server that cannot make writes durable is named in a warning.
 */
async function startDurability(config: Config, redis: RedisClient, logger: Logger) {
  if (config.redis.durability === "off") return undefined;
  // The same options (target, fail-fast, Sentinel), on a connection of its own.
  const connection = redis.duplicate();
  connection.on("error", () => {}); // the main connection logs the outage
  try {
    await waitForReady(connection, 10_000);
    const plan = new RedisDurability(connection, {
      mode: config.redis.durability,
      timeoutMs: config.redis.durabilityTimeoutMs,
      logger,
    });
    await plan.start();
    return { plan, connection };
  } catch (error) {
    connection.disconnect();
    redis.disconnect();
    throw new StartupError("Redis did not answer the durable-writes set-up (INFO).", {
      cause: error,
    });
  }
}

export function rateLimiter(
  config: Config,
  redis: RedisClient | undefined,
  name = "payment-api",
  limit = config.payment.rateLimitPerMinute,
): RateLimiter {
  if (!redis) return new LocalRateLimiter({ limit, windowMs: limiterWindowMs() });
  // Shared by every replica on this Redis: the API counts requests per key, not per process.
  return new RedisRateLimiter({
    redis,
    key: keys(config.redis.keyPrefix).rateLimit(name),
    limit,
    windowMs: limiterWindowMs(),
  });
}

/**
 * Payouts stored before the search indexes and the day totals existed are written into them
 * once (a marker key each), in the background and one after the other, a small page at a
 * time walked inside Redis (this process holds nothing per payout), after the tracker's
 * resume: reading every payout into Node, beside the resume, raised the first start's peak
 * RSS by about 45 MB with 10,000 payouts (bench `footprint`). Searches and the Overview show
 * older payouts as soon as their page is done.
 */
function backfill(redis: RedisClient, config: Config, logger: Logger): void {
  const k = keys(config.redis.keyPrefix);
  const common = { keys: k, retentionMs: config.retentionMs, now: Date.now, pageSize: 50 };
  void (async () => {
    try {
      const indexed = await indexStoredPayouts(redis, common);
      if (indexed > 0)
        logger.info({ count: indexed }, "stored payouts written into the search indexes");
      const counted = await countStoredPayouts(redis, { ...common, timeZone: config.timeZone });
      if (counted > 0)
        logger.info({ count: counted }, "stored payouts counted into the day totals");
    } catch (error) {
      logger.warn(
        { err: error },
        "stored payouts not yet all in the search indexes and day totals; retried at next start",
      );
    }
  })();
}
