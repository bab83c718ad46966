/**
 * The bot under test in its own process, as in production, so the emulator and the
 * sandbox (the harness's side) do not share its event loop.
 *
 * BENCH_BOT_MODE=app: the real app via `startApp`, configured from the environment as
 * `npm start` is; BENCH_RATE_LIMIT_PER_MINUTE, when set, replaces the Payment API limit
 * (so a throughput run measures the bot, not the limit; the Redis limiter still runs).
 * BENCH_BOT_MODE=merchants: the many-businesses app via `startMerchantsApp`, configured from
 * the environment and MERCHANTS_FILE as `npm start` is (benchmark 13).
 * BENCH_BOT_MODE=echo: the baseline, a bare Telegraf bot (`bot.launch()` long polling)
 * that answers every message with one sendMessage.
 * BENCH_BOT_MODE=floor: the floor, the same /pay job with nothing extra (floor-bot.ts), on
 * the app's environment (REDIS_URL, REDIS_KEY_PREFIX, PAYMENT_API_BASE_URL, PAYMENT_API_KEY).
 * TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET, when set, put all of them in webhook
 * mode: the app as in production, the echo and floor bots as telegram-webhook.ts does it.
 *
 * Messages: see messages.ts (ready, memory, usage, stop).
 */
import { readFileSync } from "node:fs";
import { Telegraf } from "telegraf";
import { startApp } from "../src/app.js";
import { startMerchantsApp } from "../src/app-merchants.js";
import { loadConfig } from "../src/config/index.js";
import { loadMerchants } from "../src/config/merchants.js";
import { silentLogger } from "../src/logger.js";
import { startLatencyTrace } from "../src/metrics/latency-trace.js";
import { failChild, tellParent } from "./child-io.js";
import { startFloorBot } from "./floor-bot.js";
import { CommandSchema, type MemoryReport } from "./messages.js";
import { serveTelegramWebhook, webhookFromEnv } from "./telegram-webhook.js";

interface RunningBot {
  httpUrl: string | null;
  stop(): Promise<void>;
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`${name} is not set`);
  return value;
}

async function startEchoBot(): Promise<RunningBot> {
  const bot = new Telegraf(required("TELEGRAM_BOT_TOKEN"), {
    telegram: { apiRoot: required("TELEGRAM_API_ROOT"), webhookReply: false },
  });
  bot.on("message", (ctx) => ctx.reply("echo"));
  const webhook = webhookFromEnv(process.env);
  if (webhook) {
    bot.botInfo = await bot.telegram.getMe();
    const server = await serveTelegramWebhook(bot, webhook);
    return {
      httpUrl: null,
      stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
  // launch() resolves only when polling ends; its callback runs once getMe answered.
  await new Promise<void>((resolve, reject) => {
    bot.launch(() => resolve()).catch(reject);
  });
  return { httpUrl: null, stop: async () => bot.stop("bench done") };
}

function startBenchFloorBot(): Promise<RunningBot> {
  return startFloorBot({
    token: required("TELEGRAM_BOT_TOKEN"),
    apiRoot: required("TELEGRAM_API_ROOT"),
    redisUrl: required("REDIS_URL"),
    prefix: required("REDIS_KEY_PREFIX"),
    paymentApiUrl: required("PAYMENT_API_BASE_URL"),
    paymentApiKey: required("PAYMENT_API_KEY"),
    webhook: webhookFromEnv(process.env),
  });
}

async function startBenchApp(): Promise<RunningBot> {
  // bench/latency.ts with BENCH_LATENCY_TRACE: where each update's time goes.
  const traceFile = process.env.BENCH_LATENCY_TRACE;
  if (traceFile) startLatencyTrace(traceFile);
  const config = loadConfig(process.env, "start");
  const limitText = process.env.BENCH_RATE_LIMIT_PER_MINUTE;
  const rateLimitPerMinute =
    limitText === undefined ? config.payment.rateLimitPerMinute : Number(limitText);
  const app = await startApp({
    config: { ...config, payment: { ...config.payment, rateLimitPerMinute } },
    logger: silentLogger,
    pollTimeoutSeconds: 10,
  });
  return { httpUrl: app.http?.url ?? null, stop: () => app.stop() };
}

async function startBenchMerchantsApp(): Promise<RunningBot> {
  const app = await startMerchantsApp({
    env: process.env,
    merchants: loadMerchants(process.env, "start").merchants,
    logger: silentLogger,
    pollTimeoutSeconds: 10,
  });
  return { httpUrl: app.http?.url ?? null, stop: () => app.stop() };
}

function memory(): MemoryReport {
  const gc = globalThis.gc;
  if (gc) {
    gc();
    gc();
  }
  const usage = process.memoryUsage();
  return {
    type: "memory",
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    // resourceUsage reports kilobytes.
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    gcForced: gc !== undefined,
  };
}

/** This process's read and write system calls so far (Linux's /proc/self/io); null elsewhere. */
function systemCalls(): { readCalls: number | null; writeCalls: number | null } {
  let text = "";
  try {
    text = readFileSync("/proc/self/io", "utf8");
  } catch {
    return { readCalls: null, writeCalls: null };
  }
  const count = (name: string) => {
    const match = new RegExp(`^${name}: (\\d+)$`, "m").exec(text);
    return match ? Number(match[1]) : null;
  };
  return { readCalls: count("syscr"), writeCalls: count("syscw") };
}

async function main(): Promise<void> {
  const mode = process.env.BENCH_BOT_MODE;
  const starters = {
    app: startBenchApp,
    merchants: startBenchMerchantsApp,
    floor: startBenchFloorBot,
    echo: startEchoBot,
  };
  if (mode !== "app" && mode !== "merchants" && mode !== "echo" && mode !== "floor") {
    throw new Error("BENCH_BOT_MODE must be app, merchants, floor or echo");
  }
  const bot = await starters[mode]();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await bot.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on("message", (raw) => {
    const command = CommandSchema.safeParse(raw);
    if (!command.success) return;
    if (command.data.type === "memory") tellParent(memory());
    if (command.data.type === "usage") {
      const cpu = process.cpuUsage();
      tellParent({ type: "usage", cpuMicros: cpu.user + cpu.system, ...systemCalls() });
    }
    if (command.data.type === "stop") void stop();
  });
  process.on("disconnect", () => void stop());
  tellParent({ type: "ready", httpUrl: bot.httpUrl });
}

main().catch(failChild);
