/**
 * Every store on one Redis connection, under one key prefix: the Redis implementations of
 * the store interfaces, put together (the connection itself: redis/connection.ts).
 */
import { type Logger, silentLogger } from "../logger.js";
import { keys } from "./keys.js";
import { RedisAuditLog } from "./redis/audit.js";
import { RedisBatchStore } from "./redis/batches.js";
import { RedisCallbackGate } from "./redis/callback-gate.js";
import { RedisApprovalCards } from "./redis/cards.js";
import type { RedisClient } from "./redis/connection.js";
import { closeConnection, pingWithin } from "./redis/connection.js";
import { RedisDueQueue } from "./redis/due-queue.js";
import type { RedisDurability } from "./redis/durability.js";
import { RedisLeaseStore } from "./redis/leases.js";
import { RedisOutbox } from "./redis/outbox.js";
import { RedisPayoutStore } from "./redis/payouts.js";
import { RedisPinStore } from "./redis/pins.js";
import { RedisProfileStore } from "./redis/profiles.js";
import { RedisRecipientStore, recipientKeys } from "./redis/recipients.js";
import { RedisReportsStore } from "./redis/reports.js";
import { RedisScheduleStore } from "./redis/schedules.js";
import { RedisSessionStore } from "./redis/sessions.js";
import { RedisSpendingLedger } from "./redis/spending.js";
import { RedisStaffStore } from "./redis/staff.js";
import { RedisThrottleStore } from "./redis/throttles.js";
import { DEFAULT_APPROVAL_CARD_TTL_MS, type Stores } from "./types.js";

export interface RedisStoresOptions {
  /** Put before every key, e.g. `payout-bot:`. */
  prefix: string;
  /** How long a payout is kept after its last move, unless in flight. */
  retentionMs: number;
  /** How long approval cards are remembered; default DEFAULT_APPROVAL_CARD_TTL_MS. */
  approvalCardTtlMs?: number;
  logger?: Logger;
  /** How long `ping` waits for PONG; default 1000. */
  pingTimeoutMs?: number;
  /** TIME_ZONE: the day a settled payout is counted on (model/totals.ts); default Douala. */
  timeZone?: string;
  /** Durable writes of the payout store (none: no write waits). Stopped by `close()`. */
  durability?: { plan: RedisDurability; connection: RedisClient };
  /**
   * The connections belong to someone else (the merchants front shares one set between every
   * merchant's stores): `close()` leaves them open. Default false.
   */
  borrowed?: boolean;
}

/** Every store on `redis`, under `prefix`. `close()` quits the connection unless borrowed. */
export function createRedisStores(redis: RedisClient, options: RedisStoresOptions): Stores {
  const k = keys(options.prefix);
  const logger = options.logger ?? silentLogger;
  return {
    kind: "redis",
    payouts: new RedisPayoutStore(redis, {
      keys: k,
      retentionMs: options.retentionMs,
      logger,
      durability: options.durability?.plan,
      ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
    }),
    sessions: new RedisSessionStore(redis, k, logger),
    staff: new RedisStaffStore(redis, k, logger),
    profiles: new RedisProfileStore(redis, k.profiles(), logger),
    tracking: new RedisDueQueue(redis, k.tracking(), "tracking"),
    outbox: new RedisOutbox(redis, k, recipientKeys(options.prefix).phones),
    audit: new RedisAuditLog(redis, {
      key: k.auditLog(),
      retentionMs: options.retentionMs,
      logger,
    }),
    reports: new RedisReportsStore(redis, k),
    spending: new RedisSpendingLedger(redis, k.spending),
    cards: new RedisApprovalCards(
      redis,
      k,
      options.approvalCardTtlMs ?? DEFAULT_APPROVAL_CARD_TTL_MS,
    ),
    batches: new RedisBatchStore(redis, {
      keys: k,
      retentionMs: options.retentionMs,
    }),
    recipients: new RedisRecipientStore(redis, options.prefix, { logger }),
    schedules: new RedisScheduleStore(redis, {
      keys: k,
      retentionMs: options.retentionMs,
    }),
    leases: new RedisLeaseStore(redis, k.lease),
    throttles: new RedisThrottleStore(redis, k.throttle),
    pins: new RedisPinStore(redis, k),
    callbacks: new RedisCallbackGate(redis, k),
    ping: () => pingWithin(redis, options.pingTimeoutMs ?? 1000),
    close: async () => {
      if (options.borrowed) return;
      if (options.durability) {
        options.durability.plan.stop();
        await closeConnection(options.durability.connection);
      }
      await closeConnection(redis);
    },
  };
}
