/**
 * Benchmark 1, webhook mode (`--only=pay-webhook`): the /pay round trip's three 20-user
 * figures (any step p99, updates handled per second, bot CPU per update) with updates
 * arriving by HTTP, the usual mode in production. The same echo, floor and product bots as
 * the polling benchmark (pay-roundtrip.ts), each in webhook mode: the app by
 * TELEGRAM_WEBHOOK_URL/SECRET as in production, the echo and floor bots through
 * telegram-webhook.ts, which takes updates as the app's HTTP server did before
 * TELEGRAM_WEBHOOK_REPLY_MS (answer 200 at once, handle after; the app now holds a press's
 * POST up to 50 ms for its answer to go in the reply). The emulator POSTs as Telegram does: up to 40 connections at once,
 * one update of a chat at a time, so 20 users are 20 concurrent deliveries.
 */
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { drive, ECHO_FLOW, emptySamples, PAY_FLOW, type Samples } from "./drive.js";
import {
  type CallsPerFlow,
  CONCURRENT_USERS,
  callsPerFlow,
  FLOOR_CPU,
  FLOOR_STEP_P99,
  FLOOR_UPDATES,
  SANDBOX_OPTIONS,
} from "./pay-roundtrip.js";
import { type BenchContext, withPrefix } from "./setup.js";
import { median, percentile, type Row, row } from "./stats.js";

const BENCH = "1 /pay round trip, webhook";

interface Scale {
  warmupMs: number;
  concurrentMs: number;
  rounds: number;
}

const QUICK: Scale = { warmupMs: 1000, concurrentMs: 2500, rounds: 1 };
const FULL: Scale = { warmupMs: 3000, concurrentMs: 12_000, rounds: 2 };

interface Bots {
  app: BotUnderTest;
  echo: BotUnderTest;
  floor: BotUnderTest;
}

function steps(samples: Samples): number[] {
  return [...(samples.steps.get("prompt") ?? []), ...(samples.steps.get("confirm") ?? [])];
}

function figureRows(
  app: Samples,
  echo: Samples,
  floor: Samples,
  calls: { app: ReplyCallsPerFlow; floor: ReplyCallsPerFlow },
): Row[] {
  const who = `${CONCURRENT_USERS} users, webhook`;
  const p99 = percentile(steps(app), 99);
  const floorP99 = percentile(steps(floor), 99);
  const updates = median(app.updatesPerSecond);
  const floorUpdates = median(floor.updatesPerSecond);
  const cpu = median(app.cpuMsPerUpdate);
  const floorCpu = median(floor.cpuMsPerUpdate);
  return [
    row({
      bench: BENCH,
      figure: `any step p99, ${who} (n=${steps(app).length})`,
      value: p99,
      unit: "ms",
      baseline: percentile(echo.steps.get("echo") ?? [], 99),
      floor: floorP99,
      target: `≤ ${FLOOR_STEP_P99}× floor`,
      met: p99 <= FLOOR_STEP_P99 * floorP99,
      note:
        "As the polling row, with the update POSTed to the bot (the webhook's 200 comes " +
        "before the bot handles it, for all three bots) instead of fetched by getUpdates.",
    }),
    row({
      bench: BENCH,
      figure: `updates handled/s, ${who}`,
      value: updates,
      unit: "/s",
      baseline: median(echo.updatesPerSecond),
      floor: floorUpdates,
      target: `≥ ${FLOOR_UPDATES}× floor`,
      met: updates >= FLOOR_UPDATES * floorUpdates,
      note:
        `As the polling row. Per flow the bot made ${calls.app.botApi.toFixed(1)} Bot API ` +
        `calls (${calls.app.inReply.toFixed(2)} of them in the webhook's reply) and ` +
        `${calls.app.paymentApi.toFixed(1)} Payment API requests, the floor bot ` +
        `${calls.floor.botApi.toFixed(1)} (${calls.floor.inReply.toFixed(2)}) and ` +
        `${calls.floor.paymentApi.toFixed(1)}; none called getUpdates.`,
    }),
    row({
      bench: BENCH,
      figure: `bot CPU per update, ${who}`,
      value: cpu,
      unit: "ms",
      baseline: median(echo.cpuMsPerUpdate),
      floor: floorCpu,
      target: `≤ ${FLOOR_CPU}× floor`,
      met: cpu <= FLOOR_CPU * floorCpu,
      note:
        "Includes serving the webhook's POST (one per update), in place of the polling " +
        "bots' share of a getUpdates call.",
    }),
  ];
}

/** Calls per flow, with those made in a webhook's reply (TELEGRAM_WEBHOOK_REPLY_MS). */
type ReplyCallsPerFlow = CallsPerFlow & { inReply: number };

function replyCallsPerFlow(bot: BotUnderTest, sandbox: SandboxHandle): ReplyCallsPerFlow {
  const flows = sandbox.countRequests({ method: "POST", path: "/disburse" });
  const inReply = bot.emulator.calls.filter((call) => call.viaWebhookReply).length;
  return { ...callsPerFlow(bot, sandbox), inReply: inReply / flows };
}

/** A bot that polled would be measured in the wrong mode: refuse its figures. */
function checkNoPolling(bots: Bots): void {
  for (const [name, bot] of Object.entries(bots)) {
    const polls = bot.emulator.countCalls("getUpdates");
    if (polls > 0) throw new Error(`the ${name} bot called getUpdates ${polls} times`);
    if (bot.emulator.webhook.deliveredCount === 0) {
      throw new Error(`no update reached the ${name} bot by webhook`);
    }
  }
}

async function measure(
  context: BenchContext,
  scale: Scale,
  bots: Bots,
  sandboxes: { app: SandboxHandle; floor: SandboxHandle },
): Promise<Row[]> {
  const { app, echo, floor } = bots;
  context.log(`  warming up (${scale.warmupMs} ms each)`);
  await drive(echo, ECHO_FLOW, CONCURRENT_USERS, scale.warmupMs);
  await drive(floor, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  await drive(app, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  const samples = { app: emptySamples(), echo: emptySamples(), floor: emptySamples() };
  for (let round = 1; round <= scale.rounds; round++) {
    context.log(
      `  ${CONCURRENT_USERS} users, round ${round}: echo, floor, then app, ${scale.concurrentMs} ms each`,
    );
    await drive(echo, ECHO_FLOW, CONCURRENT_USERS, scale.concurrentMs, samples.echo);
    await drive(floor, PAY_FLOW, CONCURRENT_USERS, scale.concurrentMs, samples.floor);
    await drive(app, PAY_FLOW, CONCURRENT_USERS, scale.concurrentMs, samples.app);
  }
  checkNoPolling(bots);
  const calls = {
    app: replyCallsPerFlow(app, sandboxes.app),
    floor: replyCallsPerFlow(floor, sandboxes.floor),
  };
  return figureRows(samples.app, samples.echo, samples.floor, calls);
}

/** Runs benchmark 1 in webhook mode and returns its rows. */
export async function benchPayWebhook(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  const sandbox = await startSandbox(SANDBOX_OPTIONS);
  const floorSandbox = await startSandbox(SANDBOX_OPTIONS);
  try {
    return await withPrefix(context, "pay-webhook", async (_redis, prefix) => {
      const userIds = Array.from({ length: CONCURRENT_USERS }, (_, index) => 3001 + index);
      const env = {
        ...appEnv({
          api: sandbox,
          redisUrl: context.redisUrl,
          prefix,
          payerIds: userIds,
          statusPollIntervalMs: 3_600_000,
        }),
        BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
      };
      const floorEnv = {
        ...env,
        REDIS_KEY_PREFIX: `${prefix}floor:`,
        PAYMENT_API_BASE_URL: floorSandbox.url,
        PAYMENT_API_KEY: floorSandbox.apiKey,
      };
      const started: BotUnderTest[] = [];
      const start = async (mode: "app" | "echo" | "floor", botEnv?: Record<string, string>) => {
        const bot = await startBot({ mode, userIds, env: botEnv, webhook: true });
        started.push(bot);
        return bot;
      };
      try {
        const app = await start("app", env);
        const echo = await start("echo");
        const floor = await start("floor", floorEnv);
        return await measure(
          context,
          scale,
          { app, echo, floor },
          { app: sandbox, floor: floorSandbox },
        );
      } finally {
        await Promise.all(started.map((bot) => bot.close()));
      }
    });
  } finally {
    await Promise.all([sandbox.close(), floorSandbox.close()]);
  }
}
