/**
 * Benchmark 8: signed events. The real app (its own process, real Redis, the sandbox
 * settling payments after 200 ms) sends its events to a receiver in this process.
 *
 * - Throughput: events are paused (the endpoint's state, as `/events pause` sets it) while
 *   payers make payouts until 1,000 events wait in Redis; then resumed, and timed until the
 *   receiver has them all.
 * - Latency: with events on, each event's receipt minus its change's time (the body's
 *   `timestamp`, written by the same machine's clock), p50 and p99.
 * - /pay p99 (any step) with a receiver that never answers, next to the same app without
 *   events, closed loop with 20 payers: events must not slow the chat.
 */
import { createServer, type ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { keys } from "../src/store/keys.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { drive, emptySamples, PAY_FLOW, type Samples } from "./drive.js";
import { type BenchContext, sleep, withPrefix } from "./setup.js";
import { percentile, type Row, row } from "./stats.js";

const BENCH = "8 events";
const USERS = 20;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

interface Scale {
  events: number;
  payMs: number;
  rounds: number;
}
const QUICK: Scale = { events: 300, payMs: 2500, rounds: 1 };
const FULL: Scale = { events: 1000, payMs: 10_000, rounds: 2 };

/** A receiver that records each event's arrival (or never answers, when `silent`). */
class Receiver {
  readonly arrivals: Array<{ receivedMs: number; changedMs: number }> = [];
  readonly #held: ServerResponse[] = [];
  readonly #server;
  url = "";

  constructor(silent: boolean) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        if (silent) {
          this.#held.push(res);
          return;
        }
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const stamp =
          typeof body === "object" && body !== null && "timestamp" in body
            ? Date.parse(String(body.timestamp))
            : Number.NaN;
        this.arrivals.push({ receivedMs: Date.now(), changedMs: stamp });
        res.writeHead(204).end();
      });
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const address = this.#server.address();
    if (typeof address !== "object" || address === null) throw new Error("no receiver address");
    this.url = `http://127.0.0.1:${address.port}/events`;
    return this;
  }

  close(): Promise<void> {
    for (const res of this.#held) res.destroy();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function app(
  sandbox: SandboxHandle,
  context: BenchContext,
  prefix: string,
  userIds: number[],
  events: Record<string, string>,
): Promise<BotUnderTest> {
  const env = {
    ...appEnv({
      api: sandbox,
      redisUrl: context.redisUrl,
      prefix,
      payerIds: userIds,
      statusPollIntervalMs: 200,
    }),
    BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
    ...events,
  };
  return startBot({ mode: "app", userIds, env });
}

/** Pauses events, makes payouts until `count` events wait, resumes and times the drain. */
async function throughput(
  context: BenchContext,
  redis: Redis,
  prefix: string,
  bot: BotUnderTest,
  receiver: Receiver,
  count: number,
): Promise<{ perSecond: number; drained: number }> {
  const k = keys(prefix);
  await waitFor(async () => (await redis.get(k.events("cursor"))) !== null, "events start", 10_000);
  await redis.hset(k.events("state"), "state", "paused");
  const waiting = () => redis.zcard(k.events("waiting"));
  context.log(`  events paused; paying until ${count} events wait`);
  while ((await waiting()) < count) await drive(bot, PAY_FLOW, USERS, 1000);
  // Let the last payouts settle, so nothing is queued while the drain is timed.
  await sleep(1500);
  const drained = await waiting();
  const before = receiver.arrivals.length;
  const startedMs = performance.now();
  await redis.hset(k.events("state"), "state", "active");
  await waitFor(() => receiver.arrivals.length - before >= drained, "the drain", 120_000);
  return { perSecond: drained / ((performance.now() - startedMs) / 1000), drained };
}

/** Runs benchmark 8 and returns its rows. */
export async function benchEvents(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  const sandbox = await startSandbox({
    rateLimitPerMinute: 0,
    settleDelayMs: 200,
    signResponses: false,
  });
  const fast = await new Receiver(false).listen();
  const silent = await new Receiver(true).listen();
  const userIds = Array.from({ length: USERS }, (_, index) => 5001 + index);
  try {
    const rows: Row[] = [];
    await withPrefix(context, "events", async (redis, prefix) => {
      const bot = await app(sandbox, context, prefix, userIds, {
        EVENTS_URL: fast.url,
        EVENTS_SECRET: SECRET,
      });
      try {
        const { perSecond, drained } = await throughput(
          context,
          redis,
          prefix,
          bot,
          fast,
          scale.events,
        );
        context.log(`  live: paying ${scale.payMs} ms with events on`);
        const before = fast.arrivals.length;
        await drive(bot, PAY_FLOW, USERS, scale.payMs);
        await waitFor(
          async () => (await redis.zcard(keys(prefix).events("waiting"))) === 0,
          "live events",
          60_000,
        );
        const latencies = fast.arrivals.slice(before).map((a) => a.receivedMs - a.changedMs);
        rows.push(...eventRows(perSecond, drained, latencies));
      } finally {
        await bot.close();
      }
    });
    rows.push(...(await payWithDeadReceiver(context, sandbox, userIds, silent, scale)));
    return rows;
  } finally {
    await Promise.all([fast.close(), silent.close(), sandbox.close()]);
  }
}

function eventRows(perSecond: number, drained: number, latencies: number[]): Row[] {
  return [
    row({
      bench: BENCH,
      figure: `events delivered/s (${drained} queued, then resumed)`,
      value: perSecond,
      unit: "/s",
      baseline: null,
      target: "",
      met: null,
      note:
        "Events paused while payers made payouts, then resumed: events received by a local " +
        "receiver per second until all were in. One replica sends; up to 64 tries at once, " +
        "each payout's events in order.",
    }),
    ...[50, 99].map((p) =>
      row({
        bench: BENCH,
        figure: `state change → event received p${p} (n=${latencies.length})`,
        value: percentile(latencies, p),
        unit: "ms",
        baseline: null,
        target: "",
        met: null,
        note:
          p === 99
            ? "From the audit entry's time (the move's atomic step) to the receiver's clock, " +
              "same machine; includes the loop's 250 ms tick between rounds."
            : undefined,
      }),
    ),
  ];
}

/** /pay with a receiver that never answers, next to the same app without events. */
async function payWithDeadReceiver(
  context: BenchContext,
  sandbox: SandboxHandle,
  userIds: number[],
  silent: Receiver,
  scale: Scale,
): Promise<Row[]> {
  const withEvents = emptySamples();
  const without = emptySamples();
  await withPrefix(context, "events-off", async (_redis, offPrefix) => {
    await withPrefix(context, "events-dead", async (_redis2, deadPrefix) => {
      const plain = await app(sandbox, context, offPrefix, userIds, {});
      try {
        const dead = await app(sandbox, context, deadPrefix, userIds, {
          EVENTS_URL: silent.url,
          EVENTS_SECRET: SECRET,
        });
        try {
          await drive(plain, PAY_FLOW, USERS, 1000);
          await drive(dead, PAY_FLOW, USERS, 1000);
          for (let round = 1; round <= scale.rounds; round++) {
            context.log(`  round ${round}: /pay without events, then with a silent receiver`);
            await drive(plain, PAY_FLOW, USERS, scale.payMs, without);
            await drive(dead, PAY_FLOW, USERS, scale.payMs, withEvents);
          }
        } finally {
          await dead.close();
        }
      } finally {
        await plain.close();
      }
    });
  });
  const p99 = (samples: Samples) =>
    percentile(
      [...(samples.steps.get("prompt") ?? []), ...(samples.steps.get("confirm") ?? [])],
      99,
    );
  const value = p99(withEvents);
  const baseline = p99(without);
  return [
    row({
      bench: BENCH,
      figure: `/pay any step p99, ${USERS} users, receiver never answers`,
      value,
      unit: "ms",
      baseline,
      target: "≤ 1.5× without events",
      met: value <= baseline * 1.5,
      note:
        "Closed loop, the same app with events off (baseline) and with EVENTS_URL at a " +
        "receiver that accepts the connection and never answers (every try waits its 10 s).",
    }),
  ];
}
