/**
 * The days' settled totals in Redis (model/totals.ts): read for the Overview in one
 * pipeline, and written for the payouts stored before they existed by a backfill at start.
 * The moves themselves count in their own script (lua/includes/totals.lua).
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTED_STATES, countedAtMs, type DayTotals } from "../../model/totals.js";
import type { Keys } from "../keys.js";
import { createdPage } from "./index-pages.js";
import { totalsArgs } from "./payout-move-args.js";
import { replyAt } from "./reply.js";
import { runScript, SCRIPTS } from "./scripts.js";

const HashSchema = z.record(z.string(), z.string());

/** Each day's totals (everyone's, or `userId`'s), in the order of `days`. */
export async function readDayTotals(
  redis: Redis,
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

/** Payouts counted per script call by `countStoredPayouts`. */
const BACKFILL_PAGE = 200;

const StoredSchema = z.tuple([
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
  z.string().nullable(),
]);

function storedNumber(raw: string | null): number | undefined {
  const value = Number(raw ?? "");
  return raw === null || !Number.isSafeInteger(value) ? undefined : value;
}

/**
 * Counts the payouts stored before the day totals existed (settled within the retention,
 * not counted yet), page by page (lua/payouts-count-settled.lua), then marks it done so
 * that later starts skip it. Idempotent: the record keeps the day it was counted on, so two
 * replicas starting together, or a payout settled meanwhile, are counted once. Answers how
 * many payouts it counted (0 when it was done before).
 */
export async function countStoredPayouts(
  redis: Redis,
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
  const wanted = new Set(counted);
  let total = 0;
  let after: string | undefined;
  do {
    const page = await createdPage(redis, k.allPayouts(), {
      fromMs: nowMs - options.retentionMs,
      toMs: nowMs,
      limit: options.pageSize ?? BACKFILL_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    const pipeline = redis.pipeline();
    for (const id of page.ids) {
      pipeline.hmget(k.payout(id), "state", "settledAtMs", "createdAtMs", "totalsDay");
    }
    const replies = await pipeline.exec();
    const payouts = page.ids.flatMap((id, index) => {
      const [state, settled, created, countedDay] = StoredSchema.parse(replyAt(replies, index));
      const createdAtMs = storedNumber(created);
      if (state === null || !wanted.has(state) || countedDay !== null) return [];
      if (createdAtMs === undefined) return [];
      const atMs = countedAtMs({ settledAtMs: storedNumber(settled), createdAtMs });
      return [{ id, day: totalsArgs(k, atMs, options.timeZone, options.retentionMs).totalsDay }];
    });
    if (payouts.length > 0) {
      const { totalsPrefix, totalsKeptMs } = totalsArgs(
        k,
        undefined,
        options.timeZone,
        options.retentionMs,
      );
      const reply = await runScript(
        redis,
        SCRIPTS["payouts-count-settled"],
        [],
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
    after = page.next;
  } while (after !== undefined);
  await redis.set(doneKey, String(nowMs));
  return total;
}
