/**
 * Benchmark 10: schedules. (1) Redis bytes of 1,000 active schedules (monthly, weekly and
 * one-off, as the store writes them), and of the same with a year of runs recorded each
 * (twelve monthly runs); target under 5 MB. (2) The scheduler's round with those 1,000
 * schedules and nothing due (its steady state: one read of the due index), p99;
 * target under 5 ms. The baseline is one bare ZRANGEBYSCORE round trip to the same Redis,
 * side by side, so the ratio says how many round trips' worth a round costs.
 */
import type { Redis } from "ioredis";
import { silentLogger } from "../src/logger.js";
import type { Recurrence, Schedule, ScheduleRun } from "../src/model/schedule.js";
import { createPayouts, NO_RULES } from "../src/payouts/payouts.js";
import type { Scheduler } from "../src/payouts/schedule/scheduler.js";
import { nextRunAfter } from "../src/payouts/schedule/when.js";
import type { PaymentGateway } from "../src/payouts/types.js";
import { createRedisStores } from "../src/store/redis.js";
import type { Stores } from "../src/store/types.js";
import { type BenchContext, withPrefix } from "./setup.js";
import { percentile, type Row, row } from "./stats.js";

const BENCH = "10 schedules";
const SCHEDULES = 1_000;
const TARGET_MB = 5;
const TARGET_TICK_MS = 5;
const MB = 1024 * 1024;
const ZONE = "Africa/Douala";

function recurrenceOf(index: number): Recurrence {
  if (index % 3 === 0) return { kind: "monthly", day: (index % 31) + 1, time: "09:00" };
  if (index % 3 === 1) return { kind: "weekly", weekday: (index % 7) + 1, time: "08:30" };
  return { kind: "once", date: "2027-06-30", time: "10:00" };
}

function scheduleOf(index: number, nowMs: number): Schedule {
  const recurrence = recurrenceOf(index);
  const next = nextRunAfter(recurrence, ZONE, nowMs);
  return {
    id: `bench${String(index).padStart(5, "0")}`,
    state: "active",
    recurrence,
    phone: `23767${String(1_000_000 + index).slice(-7)}`,
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount: 150_000 + index,
    note: "salary",
    ownerId: 5001 + (index % 20),
    ownerRole: "payer",
    chatId: 5001 + (index % 20),
    locale: "en",
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + 300_000,
    messageId: 1000 + index,
    runCount: 0,
    ...(next ? { nextRunAtMs: next.atMs, nextRunKey: next.key } : {}),
  };
}

async function seed(stores: Stores, nowMs: number): Promise<Schedule[]> {
  const schedules = Array.from({ length: SCHEDULES }, (_, index) => scheduleOf(index, nowMs));
  const draft = { atMs: nowMs, actorId: 5001, actorRole: "payer" as const };
  for (let start = 0; start < schedules.length; start += 100) {
    await Promise.all(
      schedules.slice(start, start + 100).map(async (schedule) => {
        await stores.schedules.create(schedule, { ...draft, action: "schedule_prompt" });
        // Indexed as due from its next run, as a Confirm leaves it.
        await stores.schedules.move(schedule.id, ["active"], "active", {});
      }),
    );
  }
  return schedules;
}

/** Twelve sent runs per schedule: a year of monthly runs. */
async function recordRuns(stores: Stores, schedules: readonly Schedule[], nowMs: number) {
  for (let start = 0; start < schedules.length; start += 100) {
    await Promise.all(
      schedules.slice(start, start + 100).map(async (schedule) => {
        for (let month = 1; month <= 12; month++) {
          const key = `2025${String(month).padStart(2, "0")}280900`;
          const run: ScheduleRun = {
            scheduleId: schedule.id,
            key,
            atMs: nowMs - (13 - month) * 30 * 86_400_000,
            state: "sent",
            payoutId: `${schedule.id}-${key}`,
            updatedAtMs: nowMs,
          };
          await stores.schedules.writeRun(run, ["none"]);
        }
      }),
    );
  }
}

/** Bytes of every key under `prefix` but the audit stream (kept for its own retention). */
async function prefixBytes(redis: Redis, prefix: string): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let count = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}schedule*`, "COUNT", 1000);
    cursor = next;
    for (const key of found) {
      const used = await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0");
      bytes += typeof used === "number" ? used : 0;
      count += 1;
    }
  } while (cursor !== "0");
  return { bytes, keys: count };
}

/** A scheduler on these stores; nothing is due, so nothing is sent (the gateway refuses). */
function idleScheduler(stores: Stores, nowMs: number): Scheduler {
  const refuse = () => Promise.reject(new Error("the benchmark sends nothing"));
  const gateway: PaymentGateway = {
    disburse: refuse,
    collect: refuse,
    getUserInfo: refuse,
    getPayment: refuse,
    getAvailability: refuse,
  };
  const payouts = createPayouts({
    gateway,
    stores,
    logger: silentLogger,
    confirmationTtlSeconds: 300,
    statusPollIntervalMs: 5_000,
    rules: { ...NO_RULES, timeZone: ZONE },
    now: () => nowMs,
  });
  return payouts.createScheduler();
}

export async function benchSchedules(context: BenchContext): Promise<Row[]> {
  return withPrefix(context, "schedules", async (redis, prefix) => {
    const stores = createRedisStores(redis, { prefix, retentionMs: 90 * 86_400_000 });
    const nowMs = Date.now();
    context.log(`  seeding ${SCHEDULES} schedules`);
    const schedules = await seed(stores, nowMs);
    const alone = await prefixBytes(redis, prefix);

    const scheduler = idleScheduler(stores, nowMs);
    const rounds = context.quick ? 200 : 2_000;
    // Warm-up: the reminders read once (each run is then remembered), scripts loaded.
    for (let n = 0; n < 20; n++) await scheduler.round();
    const ticks: number[] = [];
    const bare: number[] = [];
    for (let n = 0; n < rounds; n++) {
      let started = performance.now();
      await scheduler.round();
      ticks.push(performance.now() - started);
      started = performance.now();
      await redis.zrangebyscore(`${prefix}schedules:due`, "-inf", nowMs, "LIMIT", 0, 50);
      bare.push(performance.now() - started);
    }
    const due = await stores.schedules.due(nowMs, SCHEDULES);

    context.log("  recording a year of runs for each");
    await recordRuns(stores, schedules, nowMs);
    const withRuns = await prefixBytes(redis, prefix);
    const tickP99 = percentile(ticks, 99);
    return [
      row({
        bench: BENCH,
        figure: `Redis MB of ${SCHEDULES} schedules`,
        value: alone.bytes / MB,
        unit: "MB",
        baseline: null,
        target: `< ${TARGET_MB} MB`,
        met: alone.bytes / MB < TARGET_MB,
        note: `MEMORY USAGE (SAMPLES 0) of every schedule key (${alone.keys} keys: one JSON string each, the index by creation and the due index); the audit stream is not counted.`,
      }),
      row({
        bench: BENCH,
        figure: `Redis MB of ${SCHEDULES} schedules with 12 runs each`,
        value: withRuns.bytes / MB,
        unit: "MB",
        baseline: alone.bytes / MB,
        target: `< ${TARGET_MB} MB`,
        met: withRuns.bytes / MB < TARGET_MB,
        note: `the same with a year of monthly runs recorded per schedule (${withRuns.keys} keys); baseline: the schedules alone.`,
      }),
      row({
        bench: BENCH,
        figure: "scheduler round p99, nothing due",
        value: tickP99,
        unit: "ms",
        baseline: percentile(bare, 99),
        target: `< ${TARGET_TICK_MS} ms`,
        met: tickP99 < TARGET_TICK_MS && due.length === 0,
        note: `${rounds} rounds over ${SCHEDULES} active schedules (one read of the due index; the runs coming up are read for reminders every 15 s, here in the warm-up); baseline: one bare ZRANGEBYSCORE round trip, measured between them.`,
      }),
    ];
  });
}
