/**
 * The days' spending on Redis: one hash per day (`p spent:{day}`) with a field `merchant`
 * and one `user:{id}` per initiator, in whole XAF. The payout scripts reserve and give back
 * in the same atomic step as the move (lua/includes/spending.lua); this reads what they counted.
 */
import { z } from "zod";
import type { DayUsage, SpendingLedger } from "../types.js";
import type { RedisClient } from "./connection.js";

/**
 * How long a day's counts are kept after its last reservation: past the day's end (a day
 * lasts at most 25 hours), so that a payout reserved late in the day and failing the next
 * morning still gives its amount back to the right day. Older days are forgotten.
 */
export const SPENDING_KEPT_MS = 3 * 86_400_000;

const UsageHashSchema = z.record(z.string(), z.string().regex(/^-?\d+$/));

export class RedisSpendingLedger implements SpendingLedger {
  readonly #redis: RedisClient;
  readonly #keyOf: (day: string) => string;

  constructor(redis: RedisClient, keyOf: (day: string) => string) {
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
