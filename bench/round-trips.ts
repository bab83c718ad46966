/**
 * Benchmark 7: what one step costs in round trips. The real app (own process) reaches
 * Redis through a counting TCP relay (relays.ts); one payer goes through /pay → prompt,
 * Confirm → Pending, and then the payment's signed callback → the "Paid" notice, again and
 * again. Per step: the Redis round trips (a burst the bot sent after an answer came back:
 * each one a network latency on the way to the answer) and bytes, and the Bot API calls
 * (the emulator's record, getUpdates left out). A step's window closes once Redis has been
 * quiet for a moment after the bot's message, so writes made after it count too. The
 * bot's timers (tracker, notifier, poller lease) also use Redis now and then: the median
 * over the samples leaves them out.
 */
import { plainText } from "../src/dev/telegram-emulator/index.js";
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { STEP_TIMEOUT_MS } from "./flows.js";
import type { Counters } from "./messages.js";
import { Relays } from "./relays.js";
import { type BenchContext, sleep, withPrefix } from "./setup.js";
import { median, type Row, row } from "./stats.js";

const BENCH = "7 round trips";
const PAYER_ID = 7001;
const HOT_PATH_TARGET = 3;
/** Redis quiet this long ends a step. */
const QUIET_MS = 60;
const DAY_MS = 86_400_000;

type Step = "prompt" | "confirm" | "notice";

const STEP_NAMES: Record<Step, string> = {
  prompt: "update → prompt (/pay)",
  confirm: "Confirm → Pending",
  notice: "payment callback → Paid notice",
};

interface StepCost {
  roundTrips: number;
  bytesUp: number;
  bytesDown: number;
  botApiCalls: number;
}

interface Snapshot {
  redis: Counters;
  botApiCalls: number;
}

class Meter {
  readonly #relays: Relays;
  readonly #bot: BotUnderTest;

  constructor(relays: Relays, bot: BotUnderTest) {
    this.#relays = relays;
    this.#bot = bot;
  }

  async snapshot(): Promise<Snapshot> {
    const redis = (await this.#relays.counters()).redis;
    if (!redis) throw new Error("no redis relay");
    const botApiCalls = this.#bot.emulator.calls.filter((c) => c.method !== "getUpdates").length;
    return { redis, botApiCalls };
  }

  /** Waits until Redis has been quiet for QUIET_MS (at most a second), then snapshots. */
  async settled(): Promise<Snapshot> {
    let last = await this.snapshot();
    for (let waited = 0; waited < 1000; waited += QUIET_MS) {
      await sleep(QUIET_MS);
      const now = await this.snapshot();
      if (now.redis.bytesUp === last.redis.bytesUp) return now;
      last = now;
    }
    return last;
  }
}

function costOf(before: Snapshot, after: Snapshot): StepCost {
  return {
    roundTrips: after.redis.roundTrips - before.redis.roundTrips,
    bytesUp: after.redis.bytesUp - before.redis.bytesUp,
    bytesDown: after.redis.bytesDown - before.redis.bytesDown,
    botApiCalls: after.botApiCalls - before.botApiCalls,
  };
}

/** One /pay → Confirm → callback round, each step measured on its own. */
async function oneRound(
  bot: BotUnderTest,
  sandbox: SandboxHandle,
  meter: Meter,
): Promise<Record<Step, StepCost>> {
  const [user] = bot.users;
  if (!user) throw new Error("no user");
  const chatId = user.privateChat.id;
  const timeout = STEP_TIMEOUT_MS;

  let before = await meter.settled();
  const prompt = bot.watcher.next(
    chatId,
    (m, kind) => kind === "message" && (m.replyMarkup?.length ?? 0) > 0,
    timeout,
    "prompt",
  );
  await user.sendText("/pay 237670000001 5000");
  const shown = (await prompt).message;
  let after = await meter.settled();
  const promptCost = costOf(before, after);

  before = after;
  const pending = bot.watcher.next(
    chatId,
    (m, kind) =>
      kind === "edit" && m.messageId === shown.messageId && plainText(m).includes("Pending"),
    timeout,
    "Pending",
  );
  await user.pressButton(shown, 0);
  await pending;
  after = await meter.settled();
  const confirmCost = costOf(before, after);

  const payment = sandbox.snapshot().payments.at(-1);
  if (!payment) throw new Error("no payment was made");
  before = after;
  const paid = bot.watcher.next(
    chatId,
    (m, kind) => kind === "message" && plainText(m).includes("Paid"),
    timeout,
    "Paid notice",
  );
  sandbox.forceStatus(payment.id, "success");
  await paid;
  after = await meter.settled();
  return { prompt: promptCost, confirm: confirmCost, notice: costOf(before, after) };
}

function rows(samples: Record<Step, StepCost>[]): Row[] {
  const n = samples.length;
  return (Object.keys(STEP_NAMES) as Step[]).flatMap((step) => {
    const costs = samples.map((sample) => sample[step]);
    const trips = costs.map((cost) => cost.roundTrips);
    const hot = step !== "notice";
    return [
      row({
        bench: BENCH,
        figure: `Redis round trips, ${STEP_NAMES[step]} (median of ${n})`,
        value: median(trips),
        unit: "",
        baseline: null,
        target: hot ? `≤ ${HOT_PATH_TARGET}` : "",
        met: hot ? median(trips) <= HOT_PATH_TARGET : null,
        note:
          `${STEP_NAMES[step]}: ${Math.min(...trips)}–${Math.max(...trips)} Redis round trips ` +
          `over ${n} samples, median ${median(costs.map((c) => c.bytesUp))} bytes to Redis and ` +
          `${median(costs.map((c) => c.bytesDown))} back` +
          (hot
            ? "; an update on the hot path."
            : "; not a Telegram update: the callback, the re-read of the payment, the settlement and the notice."),
      }),
      row({
        bench: BENCH,
        figure: `Bot API calls, ${STEP_NAMES[step]} (median of ${n})`,
        value: median(costs.map((cost) => cost.botApiCalls)),
        unit: "",
        baseline: null,
        target: "",
        met: null,
      }),
    ];
  });
}

/** Runs benchmark 7 and returns its rows. */
export async function benchRoundTrips(context: BenchContext): Promise<Row[]> {
  const rounds = context.quick ? 8 : 40;
  const sandbox = await startSandbox({ rateLimitPerMinute: 0, settleDelayMs: DAY_MS });
  const relays = await Relays.start();
  try {
    return await withPrefix(context, "round-trips", async (_redis, prefix) => {
      const redisUrl = await relays.add("redis", context.redisUrl);
      const env = {
        ...appEnv({
          api: sandbox,
          redisUrl,
          prefix,
          payerIds: [PAYER_ID],
          signaturePublicKeyPem: sandbox.publicKeyPem,
          // The callback settles the payout, not a poll.
          statusPollIntervalMs: 3_600_000,
        }),
        BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
      };
      const bot = await startBot({ mode: "app", userIds: [PAYER_ID], env });
      try {
        if (!bot.httpUrl) throw new Error("the app started without its HTTP server");
        sandbox.setCallbackUrl(`${bot.httpUrl}/webhooks/payments`);
        const meter = new Meter(relays, bot);
        // The first round warms up (caches, scripts loaded); it is not counted.
        await oneRound(bot, sandbox, meter);
        context.log(`  ${rounds} rounds of /pay, Confirm, callback, one payer`);
        const samples: Record<Step, StepCost>[] = [];
        for (let n = 0; n < rounds; n++) samples.push(await oneRound(bot, sandbox, meter));
        return rows(samples);
      } finally {
        await bot.close();
      }
    });
  } finally {
    await relays.close();
    await sandbox.close();
  }
}
