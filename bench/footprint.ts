/**
 * Benchmark 5: footprint. (1) RSS of the bot's process (the real app, own process, forced
 * GC) tracking 10,000 pending payouts created straight in Redis, against the same app
 * with none (the baseline: runtime, libraries and app code). (2) Redis bytes and keys
 * per pending payout. (3) Proof that a record expires after its retention: kept while in
 * flight, a TTL once final, gone after it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Payout } from "../src/model/payout.js";
import { startSandbox } from "../src/sandbox/index.js";
import { keys } from "../src/store/keys.js";
import { createRedisStores } from "../src/store/redis.js";
import type { Stores } from "../src/store/types.js";
import { appEnv, startBot } from "./bots.js";
import type { MemoryReport } from "./messages.js";
import { type BenchContext, sleep, withPrefix } from "./setup.js";
import { mean, type Row, row } from "./stats.js";

const BENCH = "5 footprint";
const PENDING_PAYOUTS = 10_000;
const INITIATORS = 20;
/** shared/DESIGN.md and issue 23: peak under 140 MB at start-up, steady under 120 MB. */
const TARGET_PEAK_RSS_MB = 140;
const TARGET_RSS_MB = 120;
const MB = 1024 * 1024;
const HOUR_MS = 3_600_000;

function pendingPayout(nowMs: number, index: number): Payout {
  const initiatorId = 5001 + (index % INITIATORS);
  return {
    id: randomBytes(12).toString("base64url"),
    kind: "disbursement",
    state: "pending",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount: 5000 + index,
    note: "delivery",
    initiatorId,
    chatId: initiatorId,
    messageId: 100 + index,
    locale: "en",
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + 300_000,
    claimId: randomBytes(8).toString("hex"),
    submittedAtMs: nowMs,
    paymentId: randomUUID(),
    apiStatus: "pending",
    fee: 50,
    pollCount: 0,
  };
}

/** Pending payouts as the bot leaves them after a 201, next poll an hour away. */
async function seedPending(stores: Stores, count: number): Promise<Payout[]> {
  const nowMs = Date.now();
  const payouts = Array.from({ length: count }, (_, index) => pendingPayout(nowMs, index));
  for (let start = 0; start < count; start += 200) {
    await Promise.all(
      payouts.slice(start, start + 200).map(async (payout) => {
        await stores.payouts.create(payout);
        await stores.tracking.schedule(payout.id, nowMs + HOUR_MS);
      }),
    );
  }
  return payouts;
}

async function memoryOfApp(
  context: BenchContext,
  prefix: string,
  settleMs: number,
): Promise<MemoryReport> {
  const sandbox = await startSandbox({ rateLimitPerMinute: 0, signResponses: false });
  try {
    const payerIds = [5001];
    const env = appEnv({ api: sandbox, redisUrl: context.redisUrl, prefix, payerIds });
    const bot = await startBot({ mode: "app", userIds: payerIds, env, nodeArgs: ["--expose-gc"] });
    try {
      await sleep(settleMs);
      return await bot.memory();
    } finally {
      await bot.close();
    }
  } finally {
    await sandbox.close();
  }
}

async function memoryUsage(redis: Redis, key: string): Promise<number> {
  const bytes = await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0");
  return typeof bytes === "number" ? bytes : 0;
}

async function redisRows(redis: Redis, prefix: string, payouts: readonly Payout[]): Promise<Row[]> {
  const k = keys(prefix);
  const sample = payouts.slice(0, 200);
  const own = await Promise.all(
    sample.map(
      async (payout) =>
        (await memoryUsage(redis, k.payout(payout.id))) +
        (await memoryUsage(redis, k.paymentIndex(payout.paymentId ?? ""))),
    ),
  );
  const sharedKeys = [k.allPayouts(), k.stateSet("pending"), k.tracking()];
  for (let n = 0; n < INITIATORS; n++) sharedKeys.push(k.userPayouts(5001 + n));
  let shared = 0;
  for (const key of sharedKeys) shared += await memoryUsage(redis, key);
  const perPayout = mean(own) + shared / payouts.length;
  let ownKeys = 0;
  for (const pattern of [`${prefix}payout:*`, `${prefix}payment:*`]) {
    let cursor = "0";
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      ownKeys += found.length;
    } while (cursor !== "0");
  }
  return [
    row({
      bench: BENCH,
      figure: "Redis bytes per pending payout",
      value: perPayout,
      unit: "B",
      baseline: null,
      target: "",
      met: null,
      note:
        `MEMORY USAGE (SAMPLES 0) of the payout hash and its payment-id key, mean of ` +
        `${sample.length}, plus its share of the ${sharedKeys.length} shared indexes ` +
        `(history, state set, tracking schedule) over ${payouts.length} payouts.`,
    }),
    row({
      bench: BENCH,
      figure: "Redis keys of its own per payout",
      value: ownKeys / payouts.length,
      unit: "",
      baseline: null,
      target: "bounded (2: record, payment id)",
      met: ownKeys / payouts.length <= 2,
    }),
  ];
}

interface ExpiryFacts {
  /** PTTL of the record and its payment-id key while pending, then just after settling. */
  inFlight: number[];
  afterSettle: number[];
  /** Record, payment-id key, the initiator's history. */
  watched: string[];
}

/** Creates, submits and settles one payout, reading the TTLs on the way. */
async function settleOne(stores: Stores, redis: Redis, prefix: string): Promise<ExpiryFacts> {
  const k = keys(prefix);
  const payout = { ...pendingPayout(Date.now(), 0), state: "awaiting_confirmation" as const };
  const { paymentId = "", claimId, ...fresh } = payout;
  await stores.payouts.create(fresh);
  const moves = [
    await stores.payouts.transition(payout.id, "confirm", {}, { claimId }),
    await stores.payouts.transition(payout.id, "accepted", { paymentId }),
  ];
  const [record, index] = [k.payout(payout.id), k.paymentIndex(paymentId)];
  const inFlight = [await redis.pttl(record), await redis.pttl(index)];
  const settled = await stores.payouts.transition(payout.id, "settle_success", {
    settledAtMs: Date.now(),
  });
  if (![...moves, settled].every((move) => move.ok)) throw new Error("a lifecycle move failed");
  const afterSettle = [await redis.pttl(record), await redis.pttl(index)];
  return { inFlight, afterSettle, watched: [record, index, k.userPayouts(payout.initiatorId)] };
}

/** Proves a settled record expires after its retention (a short one, for the test). */
async function expiryRows(context: BenchContext): Promise<Row[]> {
  const retentionMs = context.quick ? 1000 : 2000;
  // The stores run on withPrefix's connection, which it closes once the keys are gone.
  return withPrefix(context, "expiry", async (redis, prefix) => {
    const stores = createRedisStores(redis, { prefix, retentionMs });
    const { inFlight, afterSettle, watched } = await settleOne(stores, redis, prefix);
    const ttlOk =
      inFlight.every((ttl) => ttl === -1) && afterSettle.every((t) => t > 0 && t <= retentionMs);
    await sleep(retentionMs + 500);
    const left = await redis.exists(...watched);
    return [
      row({
        bench: BENCH,
        figure: "TTL of a payout just settled (min of record, payment id)",
        value: Math.min(...afterSettle),
        unit: "ms",
        baseline: retentionMs,
        target: "0 < TTL ≤ retention",
        met: ttlOk,
        note:
          `Retention set to ${retentionMs} ms for the test. While pending, PTTL was ` +
          `${inFlight.join(" / ")} (−1: kept, never expires in flight); after settling ` +
          `${afterSettle.join(" / ")} ms. Baseline column: the retention.`,
      }),
      row({
        bench: BENCH,
        figure: "keys left after the retention (record, payment id, history)",
        value: left,
        unit: "",
        baseline: null,
        target: "0",
        met: left === 0,
      }),
    ];
  });
}

function rssRows(loaded: MemoryReport, idle: MemoryReport, count: number): Row[] {
  const forced = loaded.gcForced && idle.gcForced ? "after forced GC" : "GC NOT forced";
  return [
    row({
      bench: BENCH,
      figure: `bot RSS tracking ${count.toLocaleString("en-US")} pending payouts`,
      value: loaded.rssBytes / MB,
      unit: "MB",
      baseline: idle.rssBytes / MB,
      target: `< ${TARGET_RSS_MB} MB`,
      met: loaded.rssBytes / MB < TARGET_RSS_MB,
      note:
        `process.memoryUsage().rss of the app's own process (${forced}), measured once it ` +
        "started and resumed tracking (which reads every pending payout). Baseline: the same " +
        "app with no payouts. Both run as plain node on the transpiled JavaScript, as in " +
        "production (~92 MB of it is node plus the libraries, loaded and idle); heap " +
        `used ${(loaded.heapUsedBytes / MB).toFixed(1)} vs ${(idle.heapUsedBytes / MB).toFixed(1)} MB.`,
    }),
    row({
      bench: BENCH,
      figure: "bot peak RSS (start + resume)",
      value: loaded.maxRssBytes / MB,
      unit: "MB",
      baseline: idle.maxRssBytes / MB,
      target: `< ${TARGET_PEAK_RSS_MB} MB`,
      met: loaded.maxRssBytes / MB < TARGET_PEAK_RSS_MB,
    }),
  ];
}

/** Runs benchmark 5 and returns its rows. */
export async function benchFootprint(context: BenchContext): Promise<Row[]> {
  const settleMs = context.quick ? 1000 : 3000;
  const idle = await withPrefix(context, "idle", (_redis, prefix) =>
    memoryOfApp(context, prefix, settleMs),
  );
  const rows = await withPrefix(context, "footprint", async (redis, prefix) => {
    const stores = createRedisStores(redis, { prefix, retentionMs: 90 * 24 * HOUR_MS });
    const payouts = await seedPending(stores, PENDING_PAYOUTS);
    context.log(`  ${payouts.length} pending payouts in Redis; starting the app`);
    const loaded = await memoryOfApp(context, prefix, settleMs);
    return [...rssRows(loaded, idle, payouts.length), ...(await redisRows(redis, prefix, payouts))];
  });
  return [...rows, ...(await expiryRows(context))];
}
