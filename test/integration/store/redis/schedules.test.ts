/**
 * What only the Redis schedule store does: a schedule that ended (and a prompt never
 * confirmed) is kept for the retention, then goes with its runs; one that may still run is
 * kept as long as it may; the index drops what has gone.
 */
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRedisConnection, waitForReady } from "../../../../src/store/redis/connection.js";
import { createRedisStores } from "../../../../src/store/redis.js";
import type { Stores } from "../../../../src/store/types.js";
import { sampleSchedule } from "../../../contract/schedule-store.contract.js";
import { dropPrefix, testPrefix, testRedisUrl } from "../../../support/redis.js";

const RETENTION_MS = 60_000;
const draft = {
  atMs: 1,
  actorId: 1002,
  actorRole: "payer" as const,
  action: "schedule_prompt" as const,
};

describe("RedisScheduleStore", () => {
  let redis: Redis;
  let prefix: string;
  let stores: Stores;

  beforeEach(async () => {
    redis = createRedisConnection(testRedisUrl());
    await waitForReady(redis, 5000);
    prefix = testPrefix("schedules");
    stores = createRedisStores(redis, { prefix, retentionMs: RETENTION_MS });
  });

  afterEach(async () => {
    await dropPrefix(redis, prefix);
    await stores.close();
  });

  it("keeps a schedule while it may run, and for the retention once it ended, with its runs", async () => {
    const schedule = sampleSchedule();
    await stores.schedules.create(schedule, draft);
    const key = `${prefix}schedule:${schedule.id}`;
    const runs = `${key}:runs`;
    expect(await redis.pttl(key)).toBeGreaterThan(RETENTION_MS - 5_000);

    await stores.schedules.move(schedule.id, ["awaiting_confirmation"], "active", {});
    await stores.schedules.writeRun(
      { scheduleId: schedule.id, key: "202612310900", atMs: 1, state: "sent", updatedAtMs: 1 },
      ["none"],
    );
    expect(await redis.pttl(key)).toBe(-1);
    expect(await redis.pttl(runs)).toBe(-1);

    await stores.schedules.move(schedule.id, ["active"], "deleted", {});
    expect(await redis.pttl(key)).toBeGreaterThan(RETENTION_MS - 5_000);
    expect(await redis.pttl(runs)).toBeGreaterThan(RETENTION_MS - 5_000);
  });

  it("drops from the list's index a schedule that has gone", async () => {
    const kept = sampleSchedule({ state: "active" });
    const gone = sampleSchedule({ state: "active" });
    for (const schedule of [kept, gone]) await stores.schedules.create(schedule, draft);
    await redis.del(`${prefix}schedule:${gone.id}`);
    expect((await stores.schedules.list(10)).map((schedule) => schedule.id)).toEqual([kept.id]);
    expect(await redis.zrange(`${prefix}schedules`, 0, -1)).toEqual([kept.id]);
  });
});
