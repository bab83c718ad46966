/**
 * Variants of the product in the /pay closed loop of benchmark 1 (20 users), each against the
 * others and the floor bot (floor-bot.ts) in the same run, on a redis-server of the
 * benchmark's own (own-redis.ts), so that INFO counts only these bots' commands, bytes and
 * Redis CPU. Each bot runs in its own process with its own emulator and keys; in every round
 * each bot is driven in turn, the order reversed every other round to spread the drift of a
 * busy machine, and a figure is the median of the rounds.
 *
 * `pay-unix` (issue 37, "Redis over a Unix socket"): the product with REDIS_URL on the
 * server's TCP port (the baseline) and on its Unix socket (`unix:///…/redis.sock`), the floor
 * over TCP beside. `pay-guards` (pay-guards.ts) drives the product on the ladder of its
 * guards the same way.
 */
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { drive, emptySamples, PAY_FLOW, type Samples } from "./drive.js";
import { type OwnRedis, type ServerCounters, serverCounters, startOwnRedis } from "./own-redis.js";
import { CONCURRENT_USERS, SANDBOX_OPTIONS } from "./pay-roundtrip.js";
import type { BenchContext } from "./setup.js";
import { median, percentile, type Row, row } from "./stats.js";

export interface Scale {
  warmupMs: number;
  driveMs: number;
  rounds: number;
}

/** CI's quick run: two short rounds, so the order is alternated once. */
export const QUICK: Scale = { warmupMs: 300, driveMs: 600, rounds: 2 };
export const FULL: Scale = { warmupMs: 3000, driveMs: 8000, rounds: 4 };

/** One bot of the comparison and what its rounds measured. */
export interface Variant {
  name: string;
  bot: BotUnderTest;
  samples: Samples;
  /** Per round, per update handled: Redis commands, bytes in + out, Redis CPU (ms). */
  redisCommands: number[];
  redisBytes: number[];
  redisCpuMs: number[];
  /** Redis calls per command name over every round, and the updates of those rounds. */
  calls: Map<string, number>;
  measuredUpdates: number;
  /** When its warm-up began (performance.now()): its profile is read from there on. */
  warmupAt: number;
}

function perUpdate(before: ServerCounters, after: ServerCounters, updates: number) {
  return {
    commands: (after.commands - before.commands) / updates,
    bytes: (after.bytesIn - before.bytesIn + (after.bytesOut - before.bytesOut)) / updates,
    cpuMs: (after.cpuMs - before.cpuMs) / updates,
  };
}

/** Warms every bot up, then drives each in turn for `scale.rounds` rounds, alternating the order. */
export async function driveRounds(
  context: BenchContext,
  scale: Scale,
  redis: OwnRedis,
  variants: readonly Variant[],
): Promise<void> {
  context.log(`  warming up (${scale.warmupMs} ms each)`);
  for (const variant of variants)
    await drive(variant.bot, PAY_FLOW, CONCURRENT_USERS, scale.warmupMs);
  for (let round = 1; round <= scale.rounds; round++) {
    const order = round % 2 === 1 ? [...variants] : [...variants].reverse();
    context.log(
      `  round ${round}: ${order.map((variant) => variant.name).join(", ")}; ${scale.driveMs} ms each`,
    );
    for (const variant of order) {
      const before = await serverCounters(redis.admin);
      const updates = await drive(
        variant.bot,
        PAY_FLOW,
        CONCURRENT_USERS,
        scale.driveMs,
        variant.samples,
      );
      const after = await serverCounters(redis.admin);
      const cost = perUpdate(before, after, updates);
      for (const [name, calls] of after.calls) {
        const added = calls - (before.calls.get(name) ?? 0);
        if (added > 0) variant.calls.set(name, (variant.calls.get(name) ?? 0) + added);
      }
      variant.measuredUpdates += updates;
      variant.redisCommands.push(cost.commands);
      variant.redisBytes.push(cost.bytes);
      variant.redisCpuMs.push(cost.cpuMs);
    }
  }
}

function stepsOf(samples: Samples): number[] {
  return [...(samples.steps.get("prompt") ?? []), ...(samples.steps.get("confirm") ?? [])];
}

/** The Redis commands of most calls per update, e.g. "hset 12.1, zadd 8.0, …". */
function topCommands(variant: Variant, count = 8): string {
  return [...variant.calls.entries()]
    .filter(([name]) => name !== "info")
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, calls]) => `${name} ${(calls / variant.measuredUpdates).toFixed(1)}`)
    .join(", ");
}

/** The figures of one variant, each a median over the rounds (p99 over every step). */
export function figuresOf(variant: Variant) {
  return {
    cpuMs: median(variant.samples.cpuMsPerUpdate),
    updatesPerSecond: median(variant.samples.updatesPerSecond),
    p99: percentile(stepsOf(variant.samples), 99),
    steps: stepsOf(variant.samples).length,
    redisCommands: median(variant.redisCommands),
    redisBytes: median(variant.redisBytes),
    redisCpuMs: median(variant.redisCpuMs),
    topCommands: topCommands(variant),
  };
}

export const BUSY_NOTE =
  "On a shared machine, compare only the ratios of one run; the figures to quote come from " +
  "a full run on a quiet one.";

export async function startVariantBot(
  name: string,
  mode: "app" | "floor",
  env: Record<string, string>,
  userIds: readonly number[],
): Promise<Variant> {
  const bot = await startBot({ mode, userIds, env });
  return {
    name,
    bot,
    samples: emptySamples(),
    redisCommands: [],
    redisBytes: [],
    redisCpuMs: [],
    warmupAt: Number.NaN,
    calls: new Map(),
    measuredUpdates: 0,
  };
}

/**
 * Starts the bots all at once (a bot's start is mostly loading modules: together they take
 * little more than the slowest), runs `work`, and stops every bot started whatever happens.
 */
export async function withVariants<T>(
  context: BenchContext,
  starts: ReadonlyArray<() => Promise<Variant>>,
  work: (variants: Variant[]) => Promise<T>,
): Promise<T> {
  const startedAt = performance.now();
  const results = await Promise.allSettled(starts.map((start) => start()));
  const variants = results.flatMap((result) =>
    result.status === "fulfilled" ? [result.value] : [],
  );
  try {
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    context.log(
      `  ${variants.length} bots started in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    return await work(variants);
  } finally {
    await Promise.all(variants.map((variant) => variant.bot.close()));
  }
}

export function userIdsFrom(first: number): number[] {
  return Array.from({ length: CONCURRENT_USERS }, (_, index) => first + index);
}

/** The app's environment for these benchmarks: appEnv with no Payment API limit to hit. */
export function productEnv(
  sandbox: SandboxHandle,
  redisUrl: string,
  prefix: string,
  userIds: readonly number[],
): Record<string, string> {
  return {
    ...appEnv({
      api: sandbox,
      redisUrl,
      prefix,
      payerIds: userIds,
      // Polls are not part of a round trip; they would only add background load here.
      statusPollIntervalMs: 3_600_000,
    }),
    BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
  };
}

export async function withOwnRedisAndSandbox<T>(
  options: { unixSocket?: boolean; replica?: boolean },
  work: (redis: OwnRedis, sandbox: SandboxHandle) => Promise<T>,
): Promise<T> {
  const redis = await startOwnRedis(options);
  try {
    const sandbox = await startSandbox(SANDBOX_OPTIONS);
    try {
      return await work(redis, sandbox);
    } finally {
      await sandbox.close();
    }
  } finally {
    await redis.stop();
  }
}

// ---------------------------------------------------------------------------------------
// pay-unix

const UNIX_BENCH = "1 /pay round trip, Redis over a Unix socket";

/** `--only=pay-unix`: the product over TCP against the product over a Unix socket. */
export async function benchPayUnix(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  return withOwnRedisAndSandbox({ unixSocket: true }, async (redis, sandbox) => {
    const unixUrl = redis.unixUrl;
    if (unixUrl === null) throw new Error("the benchmark's Redis has no Unix socket");
    const userIds = userIdsFrom(3101);
    const tcpEnv = productEnv(sandbox, redis.tcpUrl, "bench:unix:tcp:", userIds);
    const starts = [
      () => startVariantBot("product over TCP", "app", tcpEnv, userIds),
      () =>
        startVariantBot(
          "product over a Unix socket",
          "app",
          { ...tcpEnv, REDIS_URL: unixUrl, REDIS_KEY_PREFIX: "bench:unix:socket:" },
          userIds,
        ),
      () =>
        startVariantBot(
          "floor over TCP",
          "floor",
          { ...tcpEnv, REDIS_KEY_PREFIX: "bench:unix:floor:" },
          userIds,
        ),
    ];
    return withVariants(context, starts, async (variants) => {
      await driveRounds(context, scale, redis, variants);
      const [tcp, unix, floor] = variants.map(figuresOf);
      if (!tcp || !unix || !floor) throw new Error("a variant is missing");
      return unixRows(tcp, unix, floor, scale);
    });
  });
}

export type Figures = ReturnType<typeof figuresOf>;

function unixRows(tcp: Figures, unix: Figures, floor: Figures, scale: Scale): Row[] {
  const users = `${CONCURRENT_USERS} users`;
  const common = { bench: UNIX_BENCH, target: "", met: null };
  return [
    row({
      ...common,
      figure: `bot CPU per update, Unix socket, ${users}`,
      value: unix.cpuMs,
      unit: "ms",
      baseline: tcp.cpuMs,
      floor: floor.cpuMs,
      note:
        "The product with REDIS_URL=unix:///…/redis.sock against the same product with " +
        "REDIS_URL=redis://127.0.0.1:<port> (the baseline), one redis-server of the " +
        "benchmark's own listening on both, the floor bot beside over TCP; each in its own " +
        `process and emulator, ${scale.rounds} rounds of ${scale.driveMs} ms each, the order ` +
        `reversed every other round; medians of the rounds. ${BUSY_NOTE}`,
    }),
    row({
      ...common,
      figure: `updates handled/s, Unix socket, ${users}`,
      value: unix.updatesPerSecond,
      unit: "/s",
      baseline: tcp.updatesPerSecond,
      floor: floor.updatesPerSecond,
    }),
    row({
      ...common,
      figure: `any step p99, Unix socket, ${users} (n=${unix.steps})`,
      value: unix.p99,
      unit: "ms",
      baseline: tcp.p99,
      floor: floor.p99,
    }),
    row({
      ...common,
      figure: `Redis CPU per update, Unix socket, ${users}`,
      value: unix.redisCpuMs,
      unit: "ms",
      baseline: tcp.redisCpuMs,
      floor: floor.redisCpuMs,
      note:
        "The redis-server's own CPU (INFO cpu, user + system) over each bot's drive, per " +
        "update handled: the other side of the socket.",
    }),
  ];
}
