import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CorruptRecordError } from "../../../src/store/errors.js";
import { keys } from "../../../src/store/keys.js";
import {
  createRedisConnection,
  reconnectDelayMs,
  waitForReady,
} from "../../../src/store/redis/connection.js";
import { indexStoredPayouts, MAX_WIDENED_WORDS } from "../../../src/store/redis/payout-search.js";
import { createRedisStores } from "../../../src/store/redis.js";
import type { Stores } from "../../../src/store/types.js";
import { DEFAULT_TIME_ZONE, dayOf } from "../../../src/time.js";
import { payoutIn, samplePayout } from "../../contract/payout-store.contract.js";
import { describeStoreContract } from "../../contract/stores.contract.js";
import { freePort } from "../../support/net.js";
import { dropPrefix, testPrefix, testRedis, testRedisUrl } from "../../support/redis.js";

async function connected(): Promise<Redis> {
  const redis = createRedisConnection(testRedisUrl());
  await waitForReady(redis, 5000);
  return redis;
}

describeStoreContract("redis stores", async ({ retentionMs, approvalCardTtlMs }) => {
  const prefix = testPrefix("stores");
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

describe("redis stores (Redis only)", () => {
  const retentionMs = 60_000;
  let prefix: string;
  let redis: Redis;
  let stores: Stores;

  beforeEach(async () => {
    prefix = testPrefix("redis-only");
    redis = await connected();
    stores = createRedisStores(redis, { prefix, retentionMs });
  });
  afterEach(async () => {
    await dropPrefix(redis, prefix);
    await stores.close();
  });

  it("never expires an in-flight payout and gives a settled one the retention", async () => {
    const k = keys(prefix);
    const payout = samplePayout();
    await stores.payouts.create(payout);
    expect(await redis.pttl(k.payout(payout.id))).toBeGreaterThan(0);
    await stores.payouts.transition(payout.id, "confirm");
    expect(await redis.pttl(k.payout(payout.id))).toBe(-1);
    await stores.payouts.transition(payout.id, "accepted", { paymentId: "pay_ttl" });
    expect(await redis.pttl(k.payout(payout.id))).toBe(-1);
    expect(await redis.pttl(k.paymentIndex("pay_ttl"))).toBe(-1);
    const unknown = await payoutIn(stores, "unknown");
    expect(await redis.pttl(k.payout(unknown.id))).toBe(-1);

    await stores.payouts.transition(payout.id, "settle_success");
    for (const key of [k.payout(payout.id), k.paymentIndex("pay_ttl")]) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(retentionMs);
    }
  });

  it("keeps a handful of keys for one payout's whole life", async () => {
    const k = keys(prefix);
    const payout = samplePayout();
    await stores.payouts.create(payout);
    const reserve = {
      kind: "disbursement" as const,
      day: "2024-11-23",
      payerCapXaf: null,
      merchantCapXaf: null,
    };
    await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1", reserve });
    await stores.payouts.transition(payout.id, "accepted", { paymentId: "pay_keys" });
    await stores.payouts.update(payout.id, { messageId: 5, pollCount: 3 });
    await stores.payouts.transition(payout.id, "settle_failed");
    const written = await redis.keys(`${prefix}*`);
    // The record, its payment index, the user's, the number's and everyone's history, its
    // status group's (everyone's and the user's; the groups it left are gone), its name's
    // words and the list of words, the initiator's open prompt, the day's spending, the
    // day's settled totals (everyone's and the user's), the outbox, and the audit log (one
    // stream for every payout, trimmed to the retention).
    const settledDay = dayOf(Date.now(), DEFAULT_TIME_ZONE);
    expect(written.sort()).toEqual(
      [
        `${prefix}audit-log`,
        `${prefix}outbox`,
        `${prefix}payment:pay_keys`,
        `${prefix}payout:${payout.id}`,
        `${prefix}payouts`,
        `${prefix}phone:${payout.phone}:payouts`,
        `${prefix}prompt:${payout.chatId}:${payout.initiatorId}`,
        `${prefix}spent:2024-11-23`,
        `${prefix}user:${payout.initiatorId}:payouts`,
        `${prefix}status:failed`,
        `${prefix}status:failed:user:${payout.initiatorId}`,
        `${prefix}word:jean`,
        `${prefix}word:dupont`,
        `${prefix}words`,
        `${prefix}words:seen`,
        k.dayTotals(settledDay),
        k.dayTotals(settledDay, payout.initiatorId),
      ].sort(),
    );
    // The indexes of one number, one prompt, one day, one person's status group and one
    // word go away by themselves.
    for (const key of [
      `${prefix}status:failed:user:${payout.initiatorId}`,
      `${prefix}word:jean`,
      `${prefix}phone:${payout.phone}:payouts`,
      `${prefix}prompt:${payout.chatId}:${payout.initiatorId}`,
      `${prefix}spent:2024-11-23`,
      k.dayTotals(settledDay),
      k.dayTotals(settledDay, payout.initiatorId),
    ]) {
      expect(await redis.pttl(key), key).toBeGreaterThan(0);
    }
  });

  it("answers too_broad for words that each begin more words than it widens to", async () => {
    for (let i = 0; i < MAX_WIDENED_WORDS + 1; i += 1) {
      await stores.payouts.create(samplePayout({ recipientName: `Bello B${i}x` }));
    }
    const period = { fromMs: Date.now() - 60_000, toMs: Date.now() + 60_000, limit: 10 };
    expect(await stores.payouts.findByWords({ words: ["b"], ...period })).toEqual({
      outcome: "too_broad",
    });
    // With a word the index answers, the broad one is checked on the records read.
    const found = await stores.payouts.findByWords({ words: ["b7x", "bello"], ...period });
    expect(found.outcome === "found" && found.items.map((p) => p.recipientName)).toEqual([
      "Bello B7x",
    ]);
    const both = await stores.payouts.findByWords({ words: ["b", "bello"], ...period });
    expect(both).toMatchObject({ outcome: "found", complete: false });
    expect(both.outcome === "found" && both.items).toHaveLength(10);
  });

  it("writes payouts stored before the search indexes into them, once", async () => {
    const k = keys(prefix);
    const paid = await payoutIn(stores, "success", { recipientName: "Aïcha Ngono" });
    const asked = samplePayout({ recipientName: "Paul Mbarga", note: "loyer" });
    await stores.payouts.create(asked);
    // As stored before the indexes existed: none of their keys.
    const indexKeys = [
      ...(await redis.keys(`${prefix}word*`)),
      ...(await redis.keys(`${prefix}status:*`)),
    ];
    await redis.del(...indexKeys);
    const period = { fromMs: Date.now() - 60_000, toMs: Date.now() + 60_000 };
    const ids = async (words: string[]) => {
      const found = await stores.payouts.findByWords({ words, ...period, limit: 10 });
      return found.outcome === "found" ? found.items.map((p) => p.id) : found.outcome;
    };
    expect(await ids(["aicha"])).toEqual([]);

    const options = { keys: k, retentionMs, now: Date.now, pageSize: 1 };
    expect(await indexStoredPayouts(redis, options)).toBe(2);
    expect(await ids(["aicha"])).toEqual([paid.id]);
    expect(await ids(["loyer", "paul"])).toEqual([asked.id]);
    const page = { ...period, offset: 0, limit: 10 };
    const paidList = await stores.payouts.listByStatus({ status: "paid", ...page });
    expect(paidList.items.map((p) => p.id)).toEqual([paid.id]);
    const own = await stores.payouts.listByStatus({ status: "other", userId: 111, ...page });
    expect(own.items.map((p) => p.id)).toEqual([asked.id]);
    // Done once: a later start skips it.
    expect(await indexStoredPayouts(redis, options)).toBe(0);
  });

  it("finds its own claim when ioredis resends a transition after a reconnect", async () => {
    const payout = await payoutIn(stores, "awaiting_confirmation");
    const first = await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1" });
    const before = await redis.hgetall(keys(prefix).payout(payout.id));
    const resent = await stores.payouts.transition(payout.id, "confirm", {}, { claimId: "c1" });
    expect(first).toMatchObject({ ok: true, applied: true });
    expect(resent).toEqual({
      ok: true,
      applied: false,
      durable: true,
      payout: first.ok && first.payout,
    });
    expect(await redis.hgetall(keys(prefix).payout(payout.id))).toEqual(before);
  });

  it("drops state-set members whose record is gone", async () => {
    const k = keys(prefix);
    const live = await payoutIn(stores, "pending");
    await redis.sadd(k.stateSet("pending"), "po_ghost_of_a_payout");
    const listed = await stores.payouts.listInState("pending");
    expect(listed.map((payout) => payout.id)).toEqual([live.id]);
    expect(await redis.smembers(k.stateSet("pending"))).toEqual([live.id]);
  });

  it("reloads its scripts after Redis forgot them", async () => {
    const payout = await payoutIn(stores, "awaiting_confirmation");
    await redis.script("FLUSH");
    const result = await stores.payouts.transition(payout.id, "confirm");
    expect(result).toMatchObject({ ok: true, applied: true, payout: { state: "submitting" } });
  });

  it("reports a corrupt record as such instead of guessing", async () => {
    const good = samplePayout();
    await stores.payouts.create(good);
    const key = keys(prefix).payout(good.id);
    await redis.hset(key, "amount", JSON.stringify("five thousand"));
    await expect(stores.payouts.get(good.id)).rejects.toThrow(CorruptRecordError);
    await expect(stores.payouts.get(good.id)).rejects.toThrow(/amount/);
    await redis.hset(key, "amount", "{not json");
    await expect(stores.payouts.list({ offset: 0, limit: 5 })).rejects.toThrow(
      /payout .* is corrupt: amount: not JSON/,
    );
  });

  it("reconnects by itself after the connection is killed", async () => {
    const killer = testRedis();
    try {
      const id = await redis.client("ID");
      const closed = once(redis, "close");
      await killer.client("KILL", "ID", String(id));
      await closed;
      await waitForReady(redis, 5000);
      expect(await stores.ping()).toBe(true);
      expect(await redis.client("ID")).not.toBe(id);
    } finally {
      killer.disconnect();
    }
  });
});

describe("createRedisConnection", () => {
  it("fails commands fast instead of queueing them while Redis is unreachable", async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await freePort()}`, {
      connectTimeoutMs: 500,
      maxReconnectDelayMs: 50,
    });
    const stores = createRedisStores(redis, { prefix: testPrefix("down"), retentionMs: 1000 });
    try {
      await expect(redis.get("anything")).rejects.toThrow(/enableOfflineQueue/);
      await expect(stores.payouts.get("po_while_down")).rejects.toThrow(/enableOfflineQueue/);
      expect(await stores.ping()).toBe(false);
      await expect(waitForReady(redis, 200)).rejects.toThrow(/not ready after 200 ms/);
    } finally {
      await stores.close();
    }
    let attemptsAfterClose = 0;
    redis.on("reconnecting", () => attemptsAfterClose++);
    await sleep(200);
    expect(attemptsAfterClose).toBe(0);
  });

  it("keeps trying to reconnect until closed", async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await freePort()}`, {
      maxReconnectDelayMs: 20,
    });
    try {
      const delaysMs: number[] = [];
      await new Promise<void>((resolve) => {
        redis.on("reconnecting", (delayMs: number) => {
          if (delaysMs.push(delayMs) === 5) resolve();
        });
      });
      expect(delaysMs).toEqual([20, 20, 20, 20, 20]);
    } finally {
      redis.disconnect();
    }
  });
});

describe("reconnectDelayMs", () => {
  it("doubles from 100 ms and stops at the cap", () => {
    const delays = [1, 2, 3, 4, 7, 1000].map((attempt) => reconnectDelayMs(attempt, 5000));
    expect(delays).toEqual([100, 200, 400, 800, 5000, 5000]);
  });
});
