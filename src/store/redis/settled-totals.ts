/**
 * The days' settled totals in Redis (model/totals.ts): read for the Overview in one
 * pipeline, and written for the payouts stored before they existed by a backfill at start.
 * The moves themselves count in their own script (lua/includes/totals.lua).
 */
import { z } from "zod";
import { COUNTED_STATES, countedAtMs, type DayTotals } from "../../model/totals.js";
import type { Keys } from "../keys.js";
import type { RedisClient } from "./connection.js";
import { totalsArgs } from "./payout-move-args.js";
import { replyAt } from "./reply.js";
import { runScript, SCRIPTS } from "./scripts.js";

const HashSchema = z.record(z.string(), z.string());

/** Each day's totals (everyone's, or `userId`'s), in the order of `days`. */
export async function readDayTotals(
  redis: RedisClient,
  k: Keys,
  days: readonly string[],
  userId?: number,
): Promise<DayTotals[]> {
  const pipeline = redis.pipeline();
  for (const day of days) pipeline.hgetall(k.dayTotals(day, userId));
  const replies = await pipeline.exec();
  return days.map((_, index) => {
    const hash = HashSchema.parse(replyAt(replies, index));
    const totals: Record<string, number> = {};
    for (const [field, value] of Object.entries(hash)) {
      const sum = Number(value);
      if (Number.isSafeInteger(sum)) totals[field] = sum;
    }
    return totals;
  });
}

/** Payouts looked at per script call by `countStoredPayouts`: under 1 ms of Redis each (median). */
const BACKFILL_PAGE = 50;

/** {next cursor, then id, settledAtMs, createdAtMs of each payout to count} */
const TotalsBackfillReplySchema = z.tuple([z.string()]).rest(z.string());

function storedNumber(raw: string): number | undefined {
  const value = Number(raw);
  return raw === "" || !Number.isSafeInteger(value) ? undefined : value;
}

/**
 * Counts the payouts stored before the day totals existed (settled within the retention,
 * not counted yet), page by page, then marks it done so that later starts skip it. Each
 * page is walked inside Redis (lua/payouts-totals-backfill.lua), which answers only the
 * payouts to count: their day is computed here (in the time zone), and they are counted by
 * lua/payouts-count-settled.lua. Idempotent: the record keeps the day it was counted on,
 * so two replicas starting together, or a payout settled meanwhile, are counted once.
 * Answers how many payouts it counted (0 when it was done before).
 */
export async function countStoredPayouts(
  redis: RedisClient,
  options: {
    keys: Keys;
    retentionMs: number;
    timeZone: string;
    now: () => number;
    pageSize?: number;
  },
): Promise<number> {
  const k = options.keys;
  const doneKey = k.dayTotals("backfilled");
  if ((await redis.exists(doneKey)) === 1) return 0;
  const nowMs = options.now();
  const counted = [...COUNTED_STATES].map((state) => JSON.stringify(state));
  const { totalsPrefix, totalsKeptMs } = totalsArgs(
    k,
    undefined,
    options.timeZone,
    options.retentionMs,
  );
  let total = 0;
  let cursor = "";
  do {
    const [next, ...found] = TotalsBackfillReplySchema.parse(
      await runScript(
        redis,
        SCRIPTS["payouts-totals-backfill"],
        [k.allPayouts()],
        [
          JSON.stringify({
            cursor,
            fromMs: String(nowMs - options.retentionMs),
            toMs: String(nowMs),
            limit: String(options.pageSize ?? BACKFILL_PAGE),
            payoutPrefix: k.payout(""),
            counted,
          }),
        ],
      ),
    );
    const payouts: Array<{ id: string; day: string }> = [];
    for (let index = 0; index + 2 < found.length; index += 3) {
      const [id = "", settled = "", created = ""] = found.slice(index, index + 3);
      const createdAtMs = storedNumber(created);
      if (createdAtMs === undefined) continue;
      const atMs = countedAtMs({ settledAtMs: storedNumber(settled), createdAtMs });
      payouts.push({
        id,
        day: totalsArgs(k, atMs, options.timeZone, options.retentionMs).totalsDay,
      });
    }
    if (payouts.length > 0) {
      const reply = await runScript(
        redis,
        SCRIPTS["payouts-count-settled"],
        // Not read: the merchant's slot, where a cluster must run it (the records are there).
        [k.allPayouts()],
        [
          JSON.stringify({
            payouts,
            payoutPrefix: k.payout(""),
            counted,
            totalsPrefix,
            totalsKeptMs,
          }),
        ],
      );
      total += z.number().parse(reply);
    }
    cursor = next;
  } while (cursor !== "");
  await redis.set(doneKey, String(nowMs));
  return total;
}
