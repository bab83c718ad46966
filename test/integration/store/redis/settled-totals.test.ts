/**
 * The backfill of the day totals (store/redis/settled-totals.ts): payouts settled before
 * the totals existed are counted once at start, those counted by their own move are not
 * counted again, and a later start does nothing.
 */
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keys } from "../../../../src/store/keys.js";
import { countStoredPayouts } from "../../../../src/store/redis/settled-totals.js";
import { createRedisStores } from "../../../../src/store/redis.js";
import type { Stores } from "../../../../src/store/types.js";
import { DEFAULT_TIME_ZONE, dayOf } from "../../../../src/time.js";
import { payoutIn } from "../../../contract/payout-store.contract.js";
import { dropPrefix, testPrefix, testRedis } from "../../../support/redis.js";

describe("countStoredPayouts", () => {
  const retentionMs = 600_000;
  let redis: Redis;
  let prefix: string;
  let stores: Stores;

  beforeEach(() => {
    redis = testRedis();
    prefix = testPrefix("totals");
    stores = createRedisStores(redis, { prefix, retentionMs });
  });
  afterEach(async () => {
    await dropPrefix(redis, prefix);
    await stores.close();
  });

  it("counts the payouts settled before the totals existed, once", async () => {
    const k = keys(prefix);
    const paid = await payoutIn(stores, "success", { amount: 6000 });
    const failed = await payoutIn(stores, "failed", { initiatorId: 222 });
    await payoutIn(stores, "pending");
    const days = [dayOf(Date.now(), DEFAULT_TIME_ZONE)];
    const expected = await stores.payouts.settledTotals(days);
    const expectedOwn = await stores.payouts.settledTotals(days, 222);
    expect(expected[0]?.["mtn:disbursement:paid_xaf"]).toBe(6000);
    // As an older version left them: no totals, records without the day they were counted on.
    await redis.del(k.dayTotals(days[0] ?? ""), k.dayTotals(days[0] ?? "", 111));
    await redis.del(k.dayTotals(days[0] ?? "", 222));
    for (const payout of [paid, failed]) await redis.hdel(k.payout(payout.id), "totalsDay");
    expect(await stores.payouts.settledTotals(days)).toEqual([{}]);
    // Settled after the upgrade, before the backfill reached it: counted by its own move.
    const later = await payoutIn(stores, "success", { amount: 2000 });

    const options = { keys: k, retentionMs, timeZone: DEFAULT_TIME_ZONE, now: Date.now };
    expect(await countStoredPayouts(redis, { ...options, pageSize: 1 })).toBe(2);
    const totals = await stores.payouts.settledTotals(days);
    expect(totals[0]?.["mtn:disbursement:paid_xaf"]).toBe(6000 + later.amount);
    expect(totals[0]?.["mtn:disbursement:paid_count"]).toBe(2);
    expect(totals[0]?.["mtn:disbursement:failed_count"]).toBe(1);
    // The backfill counts the failed volume with the count, as a move does.
    expect(totals[0]?.["mtn:disbursement:failed_xaf"]).toBe(failed.amount);
    expect(await stores.payouts.settledTotals(days, 222)).toEqual(expectedOwn);
    // Done once: a later start skips it, and nothing is counted twice.
    expect(await countStoredPayouts(redis, options)).toBe(0);
    expect(await stores.payouts.settledTotals(days)).toEqual(totals);
  });
});
