/**
 * Benchmark 12: many merchants at rest (issue 33). One bot with MERCHANTS_FILE listing N
 * merchants, nothing to do (no payouts, no schedules, no batches), against the same bot with
 * one merchant (the baseline), in this process on the loops' own pace: the Redis commands
 * per second each merchant adds at rest, the Redis bytes each keeps, and the time to start.
 * The targets (issue 33): a merchant at rest costs < 50 KB of Redis and nothing per round
 * when it has nothing due.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { startMerchantsApp } from "../src/app-merchants.js";
import { loadMerchants } from "../src/config/merchants.js";
import { startTelegramEmulator } from "../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../src/logger.js";
import { startSandbox } from "../src/sandbox/index.js";
import { freePort } from "./bots.js";
import { type BenchContext, connectRedis, sleep, withPrefix } from "./setup.js";
import { type Row, row } from "./stats.js";

const BENCH = "12 merchants at rest";
/** Issue 33: a merchant at rest keeps under 50 KB of Redis. */
const TARGET_BYTES = 50 * 1024;

interface Rest {
  /** Redis commands per second, the whole bot, at rest. */
  commandsPerSecond: number;
  /** Bytes of Redis under the merchants' prefixes (MEMORY USAGE of every key). */
  bytes: number;
  startMs: number;
}

async function commandsProcessed(redis: Redis): Promise<number> {
  const info = await redis.info("stats");
  const match = /total_commands_processed:(\d+)/.exec(info);
  return match ? Number(match[1]) : 0;
}

async function bytesUnder(redis: Redis, prefix: string): Promise<number> {
  let cursor = "0";
  let bytes = 0;
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of found) {
      const used = await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0");
      if (typeof used === "number") bytes += used;
    }
  } while (cursor !== "0");
  return bytes;
}

/** The bot with `count` merchants at rest for `restMs`: what it costs. */
async function atRest(context: BenchContext, count: number, restMs: number): Promise<Rest> {
  const keysOf = Array.from({ length: count }, (_, index) => `bench-key-${index}`);
  const sandbox = await startSandbox({ rateLimitPerMinute: 0, accounts: keysOf.map((k) => [k]) });
  const emulator = await startTelegramEmulator({ maxPollWaitMs: 1_000 });
  const dir = mkdtempSync(join(tmpdir(), "bench-merchants-"));
  try {
    return await withPrefix(context, "merchants", async (redis, prefix) => {
      const file = join(dir, "merchants.json");
      const merchants = keysOf.map((key, index) => ({
        id: `m-${index}`,
        name: `Merchant ${index}`,
        paymentApiKey: key,
        paymentApiBaseUrl: sandbox.url,
        paymentSignaturePublicKey: sandbox.publicKeyPem,
        staff: `${7001 + index}:admin,${8001 + index}:payer`,
      }));
      writeFileSync(file, JSON.stringify(merchants));
      const env = {
        TELEGRAM_BOT_TOKEN: emulator.token,
        TELEGRAM_API_ROOT: emulator.apiRoot,
        REDIS_URL: context.redisUrl,
        REDIS_KEY_PREFIX: prefix,
        MERCHANTS_FILE: file,
        HTTP_HOST: "127.0.0.1",
        HTTP_PORT: "0",
        LOG_LEVEL: "silent",
      };
      const startedAt = performance.now();
      const app = await startMerchantsApp({
        env,
        merchants: loadMerchants(env).merchants,
        logger: silentLogger,
      });
      const startMs = performance.now() - startedAt;
      try {
        // Settled first (the first rounds write what a merchant keeps), then counted.
        await sleep(Math.min(5_000, restMs));
        const before = await commandsProcessed(redis);
        const fromMs = performance.now();
        await sleep(restMs);
        const commands = (await commandsProcessed(redis)) - before;
        const commandsPerSecond = (commands * 1000) / (performance.now() - fromMs);
        return { commandsPerSecond, bytes: await bytesUnder(redis, prefix), startMs };
      } finally {
        await app.stop();
      }
    });
  } finally {
    await emulator.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A redis-server of this benchmark's own on a free port: INFO stats counts every client, so
 * on a Redis others use (tests, other benchmarks) the figure would count their work too.
 * Null when redis-server is not on the PATH (then the shared one is measured).
 */
async function privateRedis(): Promise<{ url: string; stop: () => Promise<void> } | null> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const spawned = await Promise.race([
    once(child, "spawn").then(() => true),
    once(child, "error").then(() => false),
  ]);
  if (!spawned) return null;
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    try {
      await (await connectRedis(url)).quit();
      break;
    } catch (error) {
      if (tries >= 20) {
        child.kill("SIGKILL");
        throw error;
      }
      await sleep(100);
    }
  }
  const stop = async () => {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  };
  return { url, stop };
}

export async function benchMerchants(shared: BenchContext): Promise<Row[]> {
  const own = await privateRedis();
  try {
    return await measureMerchants(own ? { ...shared, redisUrl: own.url } : shared, own !== null);
  } finally {
    await own?.stop();
  }
}

async function measureMerchants(context: BenchContext, own: boolean): Promise<Row[]> {
  const count = context.quick ? 5 : 50;
  // Idle loops rest until woken (they rested 10 s before): the window spans several former rests.
  const restMs = context.quick ? 20_000 : 60_000;
  context.log(`  1 merchant at rest, ${restMs} ms`);
  const one = await atRest(context, 1, restMs);
  context.log(`  ${count} merchants at rest, ${restMs} ms`);
  const many = await atRest(context, count, restMs);
  const perMerchantCommands = (many.commandsPerSecond - one.commandsPerSecond) / (count - 1);
  const perMerchantBytes = many.bytes / count;
  const how =
    `MERCHANTS_FILE with ${count} merchants (2 staff each) against 1, nothing due, the ` +
    `loops at their production pace (resting until woken when idle); INFO stats over ${restMs / 1000} s after 5 s to settle ` +
    (own
      ? "(a redis-server of the bench's own, serving nothing else)."
      : "(the shared Redis: redis-server is not on the PATH; only a quiet run counts).");
  return [
    row({
      bench: BENCH,
      figure: `Redis commands/s per merchant at rest, ${count} merchants`,
      value: perMerchantCommands,
      unit: "/s",
      baseline: one.commandsPerSecond,
      target: "0 (nothing per round)",
      // Nothing per round: under one command per 100 s per merchant (INFO stats is whole-server).
      met: perMerchantCommands < 0.01,
      note: `${how} Value: the ${count} merchants' rate less the one merchant's, per added merchant; baseline: the one merchant's bot, whole.`,
    }),
    row({
      bench: BENCH,
      figure: `Redis bytes per merchant at rest, ${count} merchants`,
      value: perMerchantBytes,
      unit: "B",
      baseline: one.bytes,
      target: "< 50 KB",
      met: perMerchantBytes < TARGET_BYTES,
      note: "MEMORY USAGE (SAMPLES 0) of every key under the bot's prefix, over the merchants; baseline: the one merchant's.",
    }),
    row({
      bench: BENCH,
      figure: `start, ${count} merchants`,
      value: many.startMs,
      unit: "ms",
      baseline: one.startMs,
      target: "",
      met: null,
      note: "startMerchantsApp until it resolves (every runtime started, the poller running); baseline: one merchant.",
    }),
  ];
}
