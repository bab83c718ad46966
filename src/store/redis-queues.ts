/**
 * Shared schedules (tracking, outbox), named leases and throttles on Redis. The
 * read-then-write steps are Lua scripts so two replicas never interleave them.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { luaScript, runScript } from "./lua.js";
import type { DueQueue, LeaseStore, ThrottleStore } from "./types.js";

/** KEYS: queue. ARGV: nowMs, limit, leaseUntilMs. Claims (re-scores) and returns due ids. */
/** Built once (a zod schema costs far more to build than to run). */
const KeysReplySchema = z.array(z.string());

const CLAIM_DUE_SCRIPT = luaScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[3], id) end
return ids
`);

/**
 * KEYS: throttle. ARGV: limit, windowMs. Counts one action; 1 when it is within the limit.
 * The first action of a window sets its expiry (never a later one, which would stretch it).
 */
const THROTTLE_SCRIPT = luaScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if count <= tonumber(ARGV[1]) then return 1 end
return 0
`);

/** KEYS: lease. ARGV: owner, ttlMs. 1 when the lease is ours now. */
const ACQUIRE_SCRIPT = luaScript(`
local current = redis.call('GET', KEYS[1])
if current == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

/** KEYS: lease. ARGV: owner, ttlMs. 1 when it was still ours and is extended. */
const RENEW_SCRIPT = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

/** KEYS: lease. ARGV: owner. Deletes it only when it is ours. */
const RELEASE_SCRIPT = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

export class RedisDueQueue implements DueQueue {
  readonly #redis: Redis;
  readonly #key: string;

  constructor(redis: Redis, key: string) {
    this.#redis = redis;
    this.#key = key;
  }

  /** Sets (or moves) the time `id` is due. */
  async schedule(id: string, dueAtMs: number): Promise<void> {
    await this.#redis.zadd(this.#key, dueAtMs, id);
  }

  /** Up to `limit` ids due at `nowMs`, earliest first; each is hidden until `nowMs + leaseMs`. */
  async claimDue(nowMs: number, limit: number, leaseMs: number): Promise<string[]> {
    if (limit <= 0) return [];
    const reply = await runScript(
      this.#redis,
      CLAIM_DUE_SCRIPT,
      [this.#key],
      [nowMs, limit, nowMs + leaseMs],
    );
    return KeysReplySchema.parse(reply);
  }

  async remove(id: string): Promise<void> {
    await this.#redis.zrem(this.#key, id);
  }

  async dueAt(id: string): Promise<number | null> {
    const score = await this.#redis.zscore(this.#key, id);
    return score === null ? null : Number(score);
  }

  async dueAtMany(ids: readonly string[]): Promise<Array<number | null>> {
    if (ids.length === 0) return [];
    const scores = await this.#redis.zmscore(this.#key, ...ids);
    return scores.map((score) => (score === null ? null : Number(score)));
  }

  async size(): Promise<number> {
    return this.#redis.zcard(this.#key);
  }
}

export class RedisLeaseStore implements LeaseStore {
  readonly #redis: Redis;
  readonly #keyOf: (name: string) => string;

  constructor(redis: Redis, keyOf: (name: string) => string) {
    this.#redis = redis;
    this.#keyOf = keyOf;
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const reply = await runScript(this.#redis, ACQUIRE_SCRIPT, [this.#keyOf(name)], [owner, ttlMs]);
    return z.number().parse(reply) === 1;
  }

  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const reply = await runScript(this.#redis, RENEW_SCRIPT, [this.#keyOf(name)], [owner, ttlMs]);
    return z.number().parse(reply) === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await runScript(this.#redis, RELEASE_SCRIPT, [this.#keyOf(name)], [owner]);
  }
}

export class RedisThrottleStore implements ThrottleStore {
  readonly #redis: Redis;
  readonly #keyOf: (name: string) => string;

  constructor(redis: Redis, keyOf: (name: string) => string) {
    this.#redis = redis;
    this.#keyOf = keyOf;
  }

  async take(name: string, limit: number, windowMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      THROTTLE_SCRIPT,
      [this.#keyOf(name)],
      [limit, windowMs],
    );
    return z.number().parse(reply) === 1;
  }
}
