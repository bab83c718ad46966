/**
 * The Redis stores on a real Redis Cluster (test/support/cluster.ts: three primaries with a
 * replica each): the whole store contract under a merchant's hash-tagged prefix, the
 * backfills that walk a merchant's payouts inside Redis, the durable-writes plan read from
 * every primary and its wait sent to the node of the write, and `dropPrefix` over every
 * primary.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Cluster } from "ioredis";
import { describe, expect, it } from "vitest";
import { keys, merchantKeyPrefix } from "../../../src/store/keys.js";
import {
  createRedisConnection,
  dropPrefix,
  primaries,
  type RedisClient,
  waitForReady,
} from "../../../src/store/redis/connection.js";
import { RedisDurability } from "../../../src/store/redis/durability.js";
import { indexStoredPayouts } from "../../../src/store/redis/payout-search.js";
import { countStoredPayouts } from "../../../src/store/redis/settled-totals.js";
import { createRedisStores } from "../../../src/store/redis.js";
import { DEFAULT_TIME_ZONE } from "../../../src/time.js";
import { payoutIn } from "../../contract/payout-store.contract.js";
import { describeStoreContract } from "../../contract/stores.contract.js";
import { clusterForFile } from "../../support/cluster.js";
import { testPrefix } from "../../support/redis.js";

const file = clusterForFile();

async function connected(): Promise<RedisClient> {
  const redis = createRedisConnection(file.cluster.target());
  await waitForReady(redis, 10_000);
  return redis;
}

/** How many WAIT each primary has run, by port (INFO commandstats). */
async function waitCalls(redis: RedisClient): Promise<Map<number, number>> {
  const calls = new Map<number, number>();
  for (const node of primaries(redis)) {
    const stats = await node.info("commandstats");
    calls.set(Number(node.options.port), Number(/cmdstat_wait:calls=(\d+)/.exec(stats)?.[1] ?? 0));
  }
  return calls;
}

let merchants = 0;

describeStoreContract("redis stores on a cluster", async ({ retentionMs, approvalCardTtlMs }) => {
  // A merchant of its own per test: their slots spread over the three primaries.
  merchants += 1;
  const prefix = merchantKeyPrefix(testPrefix("cluster"), `m${merchants}`);
  const redis = await connected();
  const stores = createRedisStores(redis, { prefix, retentionMs, approvalCardTtlMs });
  return {
    stores,
    cleanup: async () => {
      await dropPrefix(redis, prefix);
      await stores.close();
    },
    elapse: (ms) => sleep(ms),
    keyPrefix: prefix,
  };
});

describe("redis stores on a cluster (cluster only)", () => {
  it("is a cluster of three primaries, and the merchants' slots are on more than one", async () => {
    expect(file.redis).toBeInstanceOf(Cluster);
    expect(primaries(file.redis)).toHaveLength(3);
    const owners = new Set<number>();
    for (const merchant of ["alpha", "bravo", "charlie", "delta", "echo"]) {
      owners.add(
        (await file.cluster.primaryOf(keys(merchantKeyPrefix("x:", merchant)).staff())).port,
      );
    }
    expect(owners.size).toBeGreaterThan(1);
  });

  it("writes two merchants' stored payouts into their search indexes and day totals", async () => {
    const shared = testPrefix("backfill");
    for (const merchant of ["alpha", "bravo"]) {
      const prefix = merchantKeyPrefix(shared, merchant);
      const k = keys(prefix);
      const stores = createRedisStores(file.redis, { prefix, retentionMs: 600_000 });
      await payoutIn(stores, "success", { amount: 6000 });
      await payoutIn(stores, "pending", { amount: 7000 });
      // As if stored before the indexes and totals existed.
      await file.redis.del(k.searchIndexed());
      await file.redis.del(`${prefix}totals:counted`);
      const options = { keys: k, retentionMs: 600_000, now: Date.now, pageSize: 1 };
      await expect(indexStoredPayouts(file.redis, options)).resolves.toBeGreaterThanOrEqual(0);
      await expect(
        countStoredPayouts(file.redis, { ...options, timeZone: DEFAULT_TIME_ZONE }),
      ).resolves.toBeGreaterThanOrEqual(0);
      const list = await stores.payouts.listByStatus({
        status: "paid",
        fromMs: 0,
        toMs: Date.now() + 1000,
        offset: 0,
        limit: 10,
      });
      expect(list.items.map((payout) => payout.amount)).toEqual([6000]);
    }
    // Both merchants' keys, on whichever primaries hold them, are dropped.
    expect(await dropPrefix(file.redis, shared)).toBeGreaterThan(10);
    expect(await dropPrefix(file.redis, shared)).toBe(0);
  });

  it("reads the durable-writes plan from every primary and waits on the write's node", async () => {
    const connection = await connected();
    const plan = new RedisDurability(connection, { timeoutMs: 2000 });
    try {
      // Every primary has its replica online: the plan waits for one (WAIT 1).
      expect((await plan.start()).steps).toEqual(["WAIT"]);
      for (const merchant of ["alpha", "bravo", "charlie"]) {
        const prefix = merchantKeyPrefix(testPrefix("durable"), merchant);
        const stores = createRedisStores(connection, {
          prefix,
          retentionMs: 600_000,
          durability: { plan, connection: file.redis },
        });
        // The claim waits for the replica of the primary that made it: WAIT counts the
        // replication of the node it runs on, so it must run on the slot's owner.
        const payout = await payoutIn(stores, "awaiting_confirmation");
        const owner = await file.cluster.primaryOf(keys(prefix).payout(payout.id));
        const before = await waitCalls(file.redis);
        const claimed = await stores.payouts.transition(
          payout.id,
          "confirm",
          {},
          { durable: true },
        );
        expect(claimed).toMatchObject({ ok: true, durable: true });
        expect((await stores.payouts.get(payout.id))?.state).toBe("submitting");
        const after = await waitCalls(file.redis);
        for (const [port, calls] of after) {
          expect(calls - (before.get(port) ?? 0), `WAIT calls on ${port}`).toBe(
            port === owner.port ? 1 : 0,
          );
        }
        await dropPrefix(file.redis, prefix);
      }
    } finally {
      plan.stop();
      await connection.quit();
    }
  });
});
