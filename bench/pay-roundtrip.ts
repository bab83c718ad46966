/**
 * Benchmark 1: the bot's own cost per /pay round trip. Emulated payers run complete flows
 * (/pay → name and buttons → Confirm → Pending) against the real app (startApp, real
 * Redis, in its own process) through the Telegram emulator, with the sandbox answering at
 * once (no signing, payments stay pending). Baseline, side by side in the same run: a bare
 * Telegraf bot answering each message with one sendMessage through the same kind of
 * emulator, at the same concurrency. The floor, side by side too: the same /pay job with
 * nothing extra (floor-bot.ts), making the same Bot API and Payment API calls, against the
 * same emulator, sandbox and Redis. Runs alternate echo / floor / app to spread the noise.
 */

import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { drive, ECHO_FLOW, emptySamples, PAY_FLOW, type Samples } from "./drive.js";
import { type BenchContext, withPrefix } from "./setup.js";
import { median, percentile, type Row, row } from "./stats.js";

const BENCH = "1 /pay round trip";
export const CONCURRENT_USERS = 20;
const DAY_MS = 86_400_000;
const STEP_TARGET_MS = 10;
/** No limit, no signing, payments stay pending: the sandbox answers at once. */
export const SANDBOX_OPTIONS = {
  rateLimitPerMinute: 0,
  settleDelayMs: DAY_MS,
  signResponses: false,
};

interface Scale {
  warmupMs: number;
  singleUserMs: number;
  concurrentMs: number;
  rounds: number;
}

const QUICK: Scale = { warmupMs: 1000, singleUserMs: 1500, concurrentMs: 2500, rounds: 1 };
const FULL: Scale = { warmupMs: 3000, singleUserMs: 8000, concurrentMs: 12_000, rounds: 2 };

/** Floor targets (issue 37): the product within these of the same job done with nothing extra. */
export const FLOOR_STEP_P99 = 1.5;
export const FLOOR_UPDATES = 0.7;
export const FLOOR_CPU = 1.5;

function stepRows(users: number, app: Samples, echo: Samples, floor: Samples): Row[] {
  const echoSteps = echo.steps.get("echo") ?? [];
  const prompt = app.steps.get("prompt") ?? [];
  const confirm = app.steps.get("confirm") ?? [];
  const floorSteps = {
    prompt: floor.steps.get("prompt") ?? [],
    confirm: floor.steps.get("confirm") ?? [],
  };
  const who = users === 1 ? "1 user" : `${users} users`;
  const rows: Row[] = [];
  for (const [label, samples, floorSamples] of [
    ["/pay → prompt", prompt, floorSteps.prompt],
    ["Confirm → Pending", confirm, floorSteps.confirm],
  ] as const) {
    for (const p of [50, 99]) {
      rows.push(
        row({
          bench: BENCH,
          figure: `${label} p${p}, ${who}`,
          value: percentile(samples, p),
          unit: "ms",
          baseline: percentile(echoSteps, p),
          floor: percentile(floorSamples, p),
          target: "",
          met: null,
        }),
      );
    }
  }
  const all = [...prompt, ...confirm];
  const p99 = percentile(all, 99);
  const floorP99 = percentile([...floorSteps.prompt, ...floorSteps.confirm], 99);
  const target =
    users === 1
      ? { target: `< ${STEP_TARGET_MS} ms`, met: p99 < STEP_TARGET_MS }
      : { target: `≤ ${FLOOR_STEP_P99}× floor`, met: p99 <= FLOOR_STEP_P99 * floorP99 };
  rows.push(
    row({
      bench: BENCH,
      figure: `any step p99, ${who} (n=${all.length})`,
      value: p99,
      unit: "ms",
      baseline: percentile(echoSteps, 99),
      floor: floorP99,
      ...target,
      note:
        `${who}: measured at the emulator from the update being queued to the bot's reply/edit; ` +
        "includes the long-poll delivery, the Bot API calls (prompt: sendMessage, and " +
        "sendChatAction only when the look-up takes over 300 ms; Confirm: answerCallbackQuery + " +
        'the edit, and a "Sending…" edit first only when the API takes over 1 s) and the ' +
        "sandbox calls (userinfo; POST /disburse) " +
        "on loopback, all in other processes than the bot. Baseline: echo round trip.",
    }),
  );
  return rows;
}

/** What one flow costs in calls, counted over every flow of the run (warm-up included). */
export interface CallsPerFlow {
  botApi: number;
  getUpdates: number;
  paymentApi: number;
}

export function callsPerFlow(bot: BotUnderTest, sandbox: SandboxHandle): CallsPerFlow {
  const flows = sandbox.countRequests({ method: "POST", path: "/disburse" });
  const getUpdates = bot.emulator.countCalls("getUpdates");
  // The start-up calls: the app's getMe, deleteWebhook (setWebhook in webhook mode) and
  // setMyCommands twice; the floor bot's getMe and deleteWebhook (setWebhook).
  const startup = bot.emulator.countCalls("setMyCommands") > 0 ? 4 : 2;
  const botApi = bot.emulator.calls.length - getUpdates - startup;
  return {
    botApi: botApi / flows,
    getUpdates: getUpdates / flows,
    paymentApi: sandbox.requests.length / flows,
  };
}

function throughputRows(
  app: Samples,
  echo: Samples,
  floor: Samples,
  calls: { app: CallsPerFlow; floor: CallsPerFlow },
): Row[] {
  const updates = median(app.updatesPerSecond);
  const floorUpdates = median(floor.updatesPerSecond);
  const cpu = median(app.cpuMsPerUpdate);
  const floorCpu = median(floor.cpuMsPerUpdate);
  return [
    row({
      bench: BENCH,
      figure: `updates handled/s, ${CONCURRENT_USERS} users`,
      value: updates,
      unit: "/s",
      baseline: median(echo.updatesPerSecond),
      floor: floorUpdates,
      target: `≥ ${FLOOR_UPDATES}× floor`,
      met: updates >= FLOOR_UPDATES * floorUpdates,
      note:
        "Updates handled per second = 2 × complete /pay flows per second (a flow is 2 updates: " +
        "the /pay message and the Confirm press) vs the echo bot's messages answered per " +
        `second, both closed-loop with ${CONCURRENT_USERS} users; median of the rounds. Per ` +
        `flow the bot made ${calls.app.botApi.toFixed(1)} Bot API calls (+ ` +
        `${calls.app.getUpdates.toFixed(2)} getUpdates) and ${calls.app.paymentApi.toFixed(1)} ` +
        `Payment API requests; the floor bot ${calls.floor.botApi.toFixed(1)} (+ ` +
        `${calls.floor.getUpdates.toFixed(2)}) and ${calls.floor.paymentApi.toFixed(1)}; the ` +
        "echo bot makes 1 call per update.",
    }),
    row({
      bench: BENCH,
      figure: `complete /pay flows/s, ${CONCURRENT_USERS} users`,
      value: median(app.flowsPerSecond),
      unit: "/s",
      baseline: null,
      floor: median(floor.flowsPerSecond),
      target: "",
      met: null,
    }),
    row({
      bench: BENCH,
      figure: `bot CPU per update, ${CONCURRENT_USERS} users`,
      value: cpu,
      unit: "ms",
      baseline: median(echo.cpuMsPerUpdate),
      floor: floorCpu,
      target: `≤ ${FLOOR_CPU}× floor`,
      met: cpu <= FLOOR_CPU * floorCpu,
      note:
        "CPU time (user + system) of the bot's process per update handled, from " +
        "process.cpuUsage() in that process; less noisy than a rate on a shared machine. " +
        "The throughput ratio is roughly its inverse when the bot's process is the bottleneck.",
    }),
    ...systemCallRows(app, echo, floor),
  ];
}

/**
 * The bot's system calls per update: how often it goes to the kernel (a request or a reply
 * on a socket, mostly). With the CPU per update they split the CPU ratio in two: more
 * calls per update, and more work per call.
 */
function systemCallRows(app: Samples, echo: Samples, floor: Samples): Row[] {
  if (app.writeCallsPerUpdate.length === 0 || echo.writeCallsPerUpdate.length === 0) return [];
  const kinds = [
    ["write", app.writeCallsPerUpdate, echo.writeCallsPerUpdate, floor.writeCallsPerUpdate],
    ["read", app.readCallsPerUpdate, echo.readCallsPerUpdate, floor.readCallsPerUpdate],
  ] as const;
  return kinds.map(([kind, appCalls, echoCalls, floorCalls]) =>
    row({
      bench: BENCH,
      figure: `bot ${kind} system calls per update, ${CONCURRENT_USERS} users`,
      value: median(appCalls),
      unit: "",
      baseline: median(echoCalls),
      floor: median(floorCalls),
      target: "",
      met: null,
      note:
        "From /proc/self/io (syscw, syscr) of the bot's process, per update handled: sockets " +
        "(Redis, the Bot API, the Payment API) and files alike. CPU ratio ÷ this ratio = how " +
        "much more the bot spends per call than the echo bot.",
    }),
  );
}

/**
 * What recording metrics costs: the bot's CPU per update with METRICS_ENABLED=true (every
 * payout move, Payment API attempt, Redis command and loop round recorded; nobody scrapes)
 * against the same app without, driven alike in the same rounds.
 */
function metricsCostRow(withMetrics: Samples, without: Samples): Row {
  return row({
    bench: BENCH,
    figure: `bot CPU per update with metrics on, ${CONCURRENT_USERS} users`,
    value: median(withMetrics.cpuMsPerUpdate),
    unit: "ms",
    baseline: median(without.cpuMsPerUpdate),
    target: "",
    met: null,
    note:
      "The same app and flows with METRICS_ENABLED=true (a second process on keys of its own, " +
      "driven right after the app in every round) vs the app with metrics off: the cost of " +
      "recording every move, Payment API attempt, Bot API error, Redis command and loop round. " +
      "Nobody scrapes during the run; one scrape reads the gauges in a few O(1) Redis reads.",
  });
}

/**
 * The same app with metrics recorded (served, never scraped), on a sandbox and keys of its
 * own, so that the first app's calls per flow count its own flows only.
 */
async function withMetricsApp<T>(
  context: BenchContext,
  env: Record<string, string>,
  userIds: readonly number[],
  work: (withMetrics: BotUnderTest) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandbox({
    rateLimitPerMinute: 0,
    settleDelayMs: DAY_MS,
    signResponses: false,
  });
  try {
    return await withPrefix(context, "pay-metrics", async (_redis, prefix) => {
      const metricsEnv = {
        ...env,
        PAYMENT_API_KEY: sandbox.apiKey,
        PAYMENT_API_BASE_URL: sandbox.url,
        REDIS_KEY_PREFIX: prefix,
        METRICS_ENABLED: "true",
      };
      const withMetrics = await startBot({ mode: "app", userIds, env: metricsEnv });
      try {
        return await work(withMetrics);
      } finally {
        await withMetrics.close();
      }
    });
  } finally {
    await sandbox.close();
  }
}

/** Runs benchmark 1 and returns its rows. */
export async function benchPayRoundTrip(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  const sandbox = await startSandbox(SANDBOX_OPTIONS);
  try {
    return await withPrefix(context, "pay", async (_redis, prefix) => {
      const userIds = Array.from({ length: CONCURRENT_USERS }, (_, index) => 3001 + index);
      const env = {
        ...appEnv({
          api: sandbox,
          redisUrl: context.redisUrl,
          prefix,
          payerIds: userIds,
          // Polls are not part of a round trip; they would only add background load here.
          statusPollIntervalMs: 3_600_000,
        }),
        BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
      };
      const app = await startBot({ mode: "app", userIds, env });
      try {
        const echo = await startBot({ mode: "echo", userIds });
        try {
          // A sandbox of its own (the same kind, in this process), so each bot's calls are
          // counted apart.
          const floorSandbox = await startSandbox(SANDBOX_OPTIONS);
          const floorEnv = {
            ...env,
            REDIS_KEY_PREFIX: `${prefix}floor:`,
            PAYMENT_API_BASE_URL: floorSandbox.url,
            PAYMENT_API_KEY: floorSandbox.apiKey,
          };
          const floor = await startBot({ mode: "floor", userIds, env: floorEnv });
          try {
            return await withMetricsApp(context, env, userIds, (withMetrics) =>
              measure(context, scale, { app, echo, floor, withMetrics }, { sandbox, floorSandbox }),
            );
          } finally {
            await floor.close();
            await floorSandbox.close();
          }
        } finally {
          await echo.close();
        }
      } finally {
        await app.close();
      }
    });
  } finally {
    await sandbox.close();
  }
}

interface Bots {
  app: BotUnderTest;
  echo: BotUnderTest;
  floor: BotUnderTest;
  /** The same app with METRICS_ENABLED=true (nobody scraping): what metrics cost. */
  withMetrics: BotUnderTest;
}

async function measure(
  context: BenchContext,
  scale: Scale,
  bots: Bots,
  { sandbox, floorSandbox }: { sandbox: SandboxHandle; floorSandbox: SandboxHandle },
): Promise<Row[]> {
  const { app, echo, floor, withMetrics } = bots;
  context.log(`  warming up (${scale.warmupMs} ms each)`);
  await drive(echo, ECHO_FLOW, CONCURRENT_USERS, scale.warmupMs);
  await drive(floor, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  await drive(app, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  await drive(withMetrics, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  const rows: Row[] = [];
  for (const users of [1, CONCURRENT_USERS]) {
    const durationMs = users === 1 ? scale.singleUserMs : scale.concurrentMs;
    const appSamples = emptySamples();
    const echoSamples = emptySamples();
    const floorSamples = emptySamples();
    const metricsSamples = emptySamples();
    const many = users === CONCURRENT_USERS;
    for (let round = 1; round <= scale.rounds; round++) {
      context.log(
        `  ${users} user(s), round ${round}: echo, floor, then app${many ? " then app with metrics" : ""}, ${durationMs} ms each`,
      );
      await drive(echo, ECHO_FLOW, users, durationMs, echoSamples);
      await drive(floor, PAY_FLOW, users, durationMs, floorSamples);
      await drive(app, PAY_FLOW, users, durationMs, appSamples);
      if (many) await drive(withMetrics, PAY_FLOW, users, durationMs, metricsSamples);
    }
    rows.push(...stepRows(users, appSamples, echoSamples, floorSamples));
    if (many) {
      const calls = { app: callsPerFlow(app, sandbox), floor: callsPerFlow(floor, floorSandbox) };
      rows.push(...throughputRows(appSamples, echoSamples, floorSamples, calls));
      rows.push(metricsCostRow(metricsSamples, appSamples));
    }
  }
  return rows;
}
