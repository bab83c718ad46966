/**
 * The background runner every loop stands on: rounds one after another, woken early on
 * demand, failures logged once per outage, and with a lease (on a real Redis) rounds on one
 * replica at a time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../../src/logger.js";
import { BackgroundRunner, IDLE_ROUND } from "../../../../src/payouts/loops/runner.js";
import { createRedisConnection, waitForReady } from "../../../../src/store/redis/connection.js";
import { createRedisStores } from "../../../../src/store/redis.js";
import type { Stores } from "../../../../src/store/types.js";
import { capturedLogger } from "../../../support/logs.js";
import { waitUntil } from "../../../support/processes.js";
import { dropTestPrefix, testPrefix, testRedisUrl } from "../../../support/redis.js";

const runners: BackgroundRunner[] = [];
const opened: Array<{ stores: Stores; prefix: string }> = [];

afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  for (const { stores, prefix } of opened.splice(0)) {
    await stores.close();
    await dropTestPrefix(prefix);
  }
});

function runner(options: ConstructorParameters<typeof BackgroundRunner>[0]): BackgroundRunner {
  const made = new BackgroundRunner(options);
  runners.push(made);
  return made;
}

async function redisStores(): Promise<Stores> {
  const prefix = testPrefix("runner");
  const redis = createRedisConnection(testRedisUrl());
  await waitForReady(redis, 5000);
  const stores = createRedisStores(redis, { prefix, retentionMs: 60_000 });
  opened.push({ stores, prefix });
  return stores;
}

describe("BackgroundRunner", () => {
  it("waits its idle pause after a round with nothing to do, the usual pause after work, and wakes at once", async () => {
    let rounds = 0;
    let idle = true;
    const loop = runner({
      name: "batch round",
      logger: silentLogger,
      tickMs: 5,
      idleTickMs: 60_000,
      round: async () => {
        rounds += 1;
        return idle ? IDLE_ROUND : undefined;
      },
    });
    loop.start();
    await waitUntil(() => rounds >= 1, "the first round");
    // Idle: no second round within many usual pauses.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rounds).toBe(1);

    idle = false;
    loop.wake();
    // Work found: rounds follow each other at the usual pause again.
    await waitUntil(() => rounds >= 10, "ten rounds");
  });

  it("rests as long as its idle pause answers after a round with nothing to do", async () => {
    let rounds = 0;
    let restMs = 60_000;
    const loop = runner({
      name: "tracking tick",
      logger: silentLogger,
      tickMs: 5,
      idlePauseMs: async () => restMs,
      round: async () => {
        rounds += 1;
        return IDLE_ROUND;
      },
    });
    loop.start();
    await waitUntil(() => rounds >= 1, "the first round");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rounds).toBe(1);

    // Work due soon: the rest is that short, and rounds follow.
    restMs = 5;
    loop.wake();
    await waitUntil(() => rounds >= 10, "ten rounds");
  });

  it("asks for a lease held elsewhere once per retry pause, not every tick", async () => {
    let asked = 0;
    const elsewhere = {
      acquire: async () => {
        asked += 1;
        return false;
      },
      renew: async () => false,
      release: async () => {},
    };
    let rounds = 0;
    const loop = runner({
      name: "schedule round",
      logger: silentLogger,
      tickMs: 5,
      lease: { store: elsewhere, name: "scheduler", ttlMs: 30_000, retryMs: 60_000 },
      round: async () => {
        rounds += 1;
      },
    });
    loop.start();
    await waitUntil(() => asked >= 1, "the first try");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(asked).toBe(1);
    expect(rounds).toBe(0);
  });

  it("logs the first failure of a streak as an error, the repeats at debug, and the recovery", async () => {
    const { logger, lines } = capturedLogger("debug");
    let rounds = 0;
    const loop = runner({
      name: "tracking tick",
      logger,
      tickMs: 1,
      maxBackoffMs: 2,
      round: async () => {
        rounds += 1;
        if (rounds <= 20) throw new Error("Connection is closed.");
      },
    });
    loop.start();
    await waitUntil(() => rounds >= 25, "25 rounds");
    await loop.stop();

    expect(lines.filter((line) => line.level === 50).map((line) => line.msg)).toEqual([
      "tracking tick failed",
    ]);
    expect(lines.filter((line) => line.msg === "tracking tick failed again")).toHaveLength(19);
    expect(lines.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      "tracking tick works again",
    ]);
  });

  it("runs the next round at once when woken, instead of after its pause", async () => {
    let rounds = 0;
    const loop = runner({
      name: "notification round",
      logger: silentLogger,
      tickMs: 60_000,
      round: async () => {
        rounds += 1;
      },
    });
    loop.start();
    await waitUntil(() => rounds === 1, "the first round");
    loop.wake();
    await waitUntil(() => rounds === 2, "the round the wake asked for");
    expect(rounds).toBe(2);
  });

  it("with a lease, runs rounds on one replica at a time and hands over when that one stops", async () => {
    const stores = await redisStores();
    const counts = [0, 0];
    const replicas = [0, 1].map((index) =>
      runner({
        name: `watcher ${index}`,
        logger: silentLogger,
        tickMs: 20,
        lease: { store: stores.leases, name: "watcher", ttlMs: 3_000 },
        round: async () => {
          counts[index] = (counts[index] ?? 0) + 1;
        },
      }),
    );
    for (const replica of replicas) replica.start();
    await waitUntil(() => (counts[0] ?? 0) + (counts[1] ?? 0) >= 20, "20 rounds");
    const leader = replicas[0]?.holdsLease ? 0 : 1;
    const other = 1 - leader;
    expect(replicas[other]?.holdsLease).toBe(false);
    expect(counts[other]).toBe(0);

    await replicas[leader]?.stop();
    const before = counts[other] ?? 0;
    await waitUntil(() => (counts[other] ?? 0) > before + 5, "the other replica's rounds");
    expect(replicas[other]?.holdsLease).toBe(true);
  });
});
