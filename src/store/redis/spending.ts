/**
 * The days' spending on Redis: one hash per day (`p spent:{day}`) with a field `merchant`
 * and one `user:{id}` per initiator, in whole XAF. The payout scripts reserve and give back
 * in the same atomic step as the move (SPENDING_LUA); this reads what they counted.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { DayUsage, SpendingLedger } from "../types.js";

/**
 * How long a day's counts are kept after its last reservation: past the day's end (a day
 * lasts at most 25 hours), so that a payout reserved late in the day and failing the next
 * morning still gives its amount back to the right day. Older days are forgotten.
 */
export const SPENDING_KEPT_MS = 3 * 86_400_000;

/**
 * Lua shared with TRANSITION_SCRIPT, on the hash `day` and the initiator's `field`.
 * `overLimit` answers which cap `amount` would pass ('payer' or 'merchant', with what that
 * one had used), or nil; `spend` counts it and keeps the day `keptMs` more; `giveBack`
 * takes it off a day that is still kept (a day forgotten has nothing to give back to);
 * `reservedDayOf` reads the day a payout record reserved (`limitDay`), or false.
 */
export const SPENDING_LUA = `
local function overLimit(day, field, amount, payerCap, merchantCap)
  local payerUsed = tonumber(redis.call('HGET', day, field) or '0')
  if payerCap ~= '' and payerUsed + amount > tonumber(payerCap) then
    return 'payer', string.format('%d', payerUsed)
  end
  local merchantUsed = tonumber(redis.call('HGET', day, 'merchant') or '0')
  if merchantCap ~= '' and merchantUsed + amount > tonumber(merchantCap) then
    return 'merchant', string.format('%d', merchantUsed)
  end
  return nil
end
local function spend(day, field, amount, keptMs)
  redis.call('HINCRBY', day, field, amount)
  redis.call('HINCRBY', day, 'merchant', amount)
  redis.call('PEXPIRE', day, keptMs)
end
local function reservedDayOf(record)
  local ok, day = pcall(cjson.decode, redis.call('HGET', record, 'limitDay') or 'null')
  if ok and type(day) == 'string' then return day end
  return false
end
local function giveBack(day, field, amount)
  if redis.call('EXISTS', day) == 0 then return end
  redis.call('HINCRBY', day, field, -amount)
  redis.call('HINCRBY', day, 'merchant', -amount)
end
`;

const UsageHashSchema = z.record(z.string(), z.string().regex(/^-?\d+$/));

export class RedisSpendingLedger implements SpendingLedger {
  readonly #redis: Redis;
  readonly #keyOf: (day: string) => string;

  constructor(redis: Redis, keyOf: (day: string) => string) {
    this.#redis = redis;
    this.#keyOf = keyOf;
  }

  async usage(day: string): Promise<DayUsage> {
    const hash = UsageHashSchema.parse(await this.#redis.hgetall(this.#keyOf(day)));
    const byUser = new Map<number, number>();
    for (const [field, value] of Object.entries(hash)) {
      const userId = /^user:(\d+)$/.exec(field)?.[1];
      if (userId !== undefined && Number(value) > 0) byUser.set(Number(userId), Number(value));
    }
    return { merchantXaf: Math.max(0, Number(hash.merchant ?? 0)), byUser };
  }
}
