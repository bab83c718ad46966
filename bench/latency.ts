/**
 * Benchmark 6: latency under a real network. The real app and the bare Telegraf echo bot
 * (the baseline), each in its own process, reach the Telegram emulator through a TCP relay,
 * and the app reaches Redis through one too; the relays run in a process of their own
 * (relays.ts). Without the proxy they add nothing but a loopback hop. With it they hold
 * every chunk 1 ms each way to Redis (Redis on another host) and 20 ms each way to Telegram
 * (Telegram across the internet). The Payment API sandbox stays on loopback: its own
 * latency is not the bot's. Emulated payers run /pay → prompt → Confirm → Pending, alone
 * and 20 at once, acting 100 ms after each bot message; both settings in the same run,
 * echo and app alternating.
 */
import { appendFileSync } from "node:fs";
import { startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import {
  drive,
  ECHO_FLOW,
  echoFlowThinking,
  emptySamples,
  type Flow,
  PAY_COMMAND,
  PAY_FLOW,
  payFlowThinking,
  type Samples,
} from "./drive.js";
import { payFlow } from "./flows.js";
import { Relays } from "./relays.js";
import { type BenchContext, withPrefix } from "./setup.js";
import { percentile, type Row, row } from "./stats.js";

const BENCH = "6 latency";
const REDIS_DELAY_MS = 1;
const TELEGRAM_DELAY_MS = 20;
/**
 * With the proxy, the least any step can take: the update reaches the bot (20 ms) and
 * the bot's answer reaches Telegram (20 ms). Redis round trips count as the bot's own.
 */
const INJECTED_MINIMUM_MS = 2 * TELEGRAM_DELAY_MS;
const ADDED_TARGET_MS = 10;
/**
 * Users act this long after the bot's message, as people do (they take seconds). With 0, a
 * step would start before the bot's next long poll is back at Telegram and wait for it:
 * a cost of this benchmark's closed loop (the /pay benchmark's), not of the bot.
 */
const THINK_MS = 100;
const APP_FLOW = payFlowThinking(THINK_MS);
/**
 * BENCH_LATENCY_TRACE=<file>: the app writes where each update's time goes to <file>.bot.jsonl
 * (src/metrics/latency-trace.ts), and each timed step is written to <file>.steps.jsonl with its
 * wall-clock start, to be read together (`npx tsx bench/latency-trace.ts <file>`).
 */
const TRACE_FILE = process.env.BENCH_LATENCY_TRACE?.trim() || undefined;

/** APP_FLOW, each step also written to the trace's steps file with its setting. */
function tracedAppFlow(file: string, setting: string): Flow {
  return async (user, bot) => {
    const timing = await payFlow(user, bot.watcher, PAY_COMMAND, THINK_MS);
    const wall = (ms: number) => performance.timeOrigin + ms;
    const chat = user.privateChat.id;
    const lines = [
      { setting, step: "prompt", chat, startMs: wall(timing.sentAtMs), ms: timing.promptMs },
      { setting, step: "confirm", chat, startMs: wall(timing.pressedAtMs), ms: timing.confirmMs },
    ];
    appendFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    return { prompt: timing.promptMs, confirm: timing.confirmMs };
  };
}
const ECHO_THINKING = echoFlowThinking(THINK_MS);
const CONCURRENT_USERS = 20;
const DAY_MS = 86_400_000;

interface Scale {
  warmupMs: number;
  singleUserMs: number;
  /**
   * One user through the proxy, the setting the target is judged on: long enough for its
   * p99 to be more than its slowest step (a flow takes about 0.3 s, so 12 s gave 39 steps
   * of each kind, whose p99 is their maximum; 48 s gives about 150).
   */
  singleUserProxyMs: number;
  concurrentMs: number;
}

const QUICK: Scale = {
  warmupMs: 800,
  singleUserMs: 1500,
  singleUserProxyMs: 1500,
  concurrentMs: 1500,
};
const FULL: Scale = {
  warmupMs: 3000,
  singleUserMs: 12_000,
  singleUserProxyMs: 48_000,
  concurrentMs: 8000,
};

const STEPS = [
  ["prompt", "/pay → prompt"],
  ["confirm", "Confirm → Pending"],
] as const;

interface Setting {
  proxy: boolean;
  users: number;
  app: Samples;
  echo: Samples;
}

function label(setting: Pick<Setting, "proxy" | "users">): string {
  const who = setting.users === 1 ? "1 user" : `${setting.users} users`;
  return `${who}, ${setting.proxy ? "proxy" : "no proxy"}`;
}

function latencyRows(setting: Setting): Row[] {
  const echo = setting.echo.steps.get("echo") ?? [];
  return STEPS.flatMap(([step, name]) => {
    const samples = setting.app.steps.get(step) ?? [];
    return ([50, 99] as const).map((p) =>
      row({
        bench: BENCH,
        figure: `${name} p${p}, ${label(setting)}${p === 99 ? ` (n=${samples.length})` : ""}`,
        value: percentile(samples, p),
        unit: "ms",
        baseline: percentile(echo, p),
        target: "",
        met: null,
      }),
    );
  });
}

/** With the proxy and 1 user: p99 over the injected minimum, app against echo. */
function addedRows(setting: Setting): Row[] {
  const echo = percentile(setting.echo.steps.get("echo") ?? [], 99) - INJECTED_MINIMUM_MS;
  return STEPS.map(([step, name]) => {
    const added = percentile(setting.app.steps.get(step) ?? [], 99) - INJECTED_MINIMUM_MS;
    return row({
      bench: BENCH,
      figure: `${name}: added over the injected ${INJECTED_MINIMUM_MS} ms, p99, 1 user`,
      value: added,
      unit: "ms",
      baseline: echo,
      target: `< ${ADDED_TARGET_MS} ms`,
      met: added < ADDED_TARGET_MS,
      note:
        step === "prompt"
          ? `Proxy: ${REDIS_DELAY_MS} ms each way to Redis, ${TELEGRAM_DELAY_MS} ms each way to ` +
            `the Telegram emulator (TCP relays in a process of their own). Injected minimum: ` +
            `the update's way in plus the answer's way out, ${INJECTED_MINIMUM_MS} ms; every ` +
            "Redis round trip (2 ms), every Bot API call the bot waits for before the answer " +
            "(40 ms) and its CPU time count as added. Baseline: the echo bot's p99 over the " +
            "same minimum, through the same relay. Users act " +
            `${THINK_MS} ms after the bot's last message (both bots), so that a step does ` +
            "not wait for the bot's next long poll."
          : undefined,
    });
  });
}

async function measure(
  context: BenchContext,
  scale: Scale,
  bots: { app: BotUnderTest; echo: BotUnderTest },
  relays: Relays,
): Promise<Row[]> {
  context.log(`  warming up (${scale.warmupMs} ms each)`);
  await drive(bots.echo, ECHO_FLOW, CONCURRENT_USERS, scale.warmupMs);
  await drive(bots.app, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  const rows: Row[] = [];
  for (const proxy of [false, true]) {
    await relays.setDelays(["redis"], proxy ? REDIS_DELAY_MS : 0, proxy ? REDIS_DELAY_MS : 0);
    const telegramMs = proxy ? TELEGRAM_DELAY_MS : 0;
    await relays.setDelays(["app-telegram", "echo-telegram"], telegramMs, telegramMs);
    for (const users of [1, CONCURRENT_USERS]) {
      const setting: Setting = { proxy, users, app: emptySamples(), echo: emptySamples() };
      const single = proxy ? scale.singleUserProxyMs : scale.singleUserMs;
      const durationMs = users === 1 ? single : scale.concurrentMs;
      context.log(`  ${label(setting)}: echo then app, ${durationMs} ms each`);
      await drive(bots.echo, ECHO_THINKING, users, durationMs, setting.echo);
      const flow = TRACE_FILE
        ? tracedAppFlow(`${TRACE_FILE}.steps.jsonl`, label(setting))
        : APP_FLOW;
      await drive(bots.app, flow, users, durationMs, setting.app);
      rows.push(...latencyRows(setting));
      if (proxy && users === 1) rows.push(...addedRows(setting));
    }
  }
  return rows;
}

/** Runs benchmark 6 and returns its rows. */
export async function benchLatency(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  const sandbox = await startSandbox({
    rateLimitPerMinute: 0,
    settleDelayMs: DAY_MS,
    signResponses: false,
  });
  const relays = await Relays.start();
  try {
    return await withPrefix(context, "latency", async (_redis, prefix) => {
      const userIds = Array.from({ length: CONCURRENT_USERS }, (_, index) => 6001 + index);
      const redisUrl = await relays.add("redis", context.redisUrl);
      const env = {
        ...appEnv({
          api: sandbox,
          redisUrl,
          prefix,
          payerIds: userIds,
          statusPollIntervalMs: 3_600_000,
        }),
        BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
        ...(TRACE_FILE ? { BENCH_LATENCY_TRACE: `${TRACE_FILE}.bot.jsonl` } : {}),
      };
      const app = await startBot({
        mode: "app",
        userIds,
        env,
        routeTelegram: (root) => relays.add("app-telegram", root),
      });
      try {
        const echo = await startBot({
          mode: "echo",
          userIds,
          routeTelegram: (root) => relays.add("echo-telegram", root),
        });
        try {
          return await measure(context, scale, { app, echo }, relays);
        } finally {
          await echo.close();
        }
      } finally {
        await app.close();
      }
    });
  } finally {
    await relays.close();
    await sandbox.close();
  }
}
