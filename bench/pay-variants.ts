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
 * over TCP beside.
 *
 * `pay-guards` (issue 37, "the product's cost split"): the product on a ladder of its real
 * configuration, from the fewest guards the configuration allows (no duplicate warning, no
 * daily caps, no approvals, durable writes off) up to all of them (with a replica, so
 * REDIS_DURABILITY=auto waits for it), one guard added per rung. A rung's figure against the
 * rung below is what that guard costs; the first rung against the floor is what no switch
 * turns off (roles, audit, the payout's durable record and its moves, throttles).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { cpuSplit } from "./cpu-split.js";
import { drive, emptySamples, PAY_FLOW, type Samples } from "./drive.js";
import { type OwnRedis, type ServerCounters, serverCounters, startOwnRedis } from "./own-redis.js";
import { CONCURRENT_USERS, SANDBOX_OPTIONS } from "./pay-roundtrip.js";
import type { BenchContext } from "./setup.js";
import { median, percentile, type Row, row } from "./stats.js";

interface Scale {
  warmupMs: number;
  driveMs: number;
  rounds: number;
}

/** CI's quick run: two short rounds, so the order is alternated once. */
const QUICK: Scale = { warmupMs: 300, driveMs: 600, rounds: 2 };
const FULL: Scale = { warmupMs: 3000, driveMs: 8000, rounds: 4 };

/** One bot of the comparison and what its rounds measured. */
interface Variant {
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
async function driveRounds(
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
function figuresOf(variant: Variant) {
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

const BUSY_NOTE =
  "On a shared machine, compare only the ratios of one run; the figures to quote come from " +
  "a full run on a quiet one.";

async function startVariantBot(
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
async function withVariants<T>(
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

function userIdsFrom(first: number): number[] {
  return Array.from({ length: CONCURRENT_USERS }, (_, index) => first + index);
}

/** The app's environment for these benchmarks: appEnv with no Payment API limit to hit. */
function productEnv(
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

async function withOwnRedisAndSandbox<T>(
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

type Figures = ReturnType<typeof figuresOf>;

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

// ---------------------------------------------------------------------------------------
// pay-guards

const GUARDS_BENCH = "1 /pay round trip, the guards' cost";

/** A rung of the ladder: the environment it adds to the one below. */
interface Rung {
  name: string;
  env: Record<string, string>;
  /** What the rung turns on, for the note. */
  adds: string;
}

/** Caps far above what a run pays, so every check runs and none refuses. */
const HIGH_CAP_XAF = "1000000000000";
/** Above the benchmark's 5,000 XAF: the rule is looked at on every payout, none waits. */
const APPROVAL_ABOVE_XAF = "1000000";

const LADDER: readonly Rung[] = [
  {
    name: "fewest guards",
    env: { DUPLICATE_WINDOW_MINUTES: "0", REDIS_DURABILITY: "off" },
    adds:
      "DUPLICATE_WINDOW_MINUTES=0, no daily caps, no approvals, REDIS_DURABILITY=off: what " +
      "no switch turns off (roles, throttles, the audit log, the payout's record and its " +
      "checked moves, the answer's record)",
  },
  {
    name: "+ duplicates",
    env: { DUPLICATE_WINDOW_MINUTES: "1440" },
    adds: "the duplicate warning, DUPLICATE_WINDOW_MINUTES=1440 (the default; `pay` runs so)",
  },
  {
    name: "+ daily caps",
    env: { PAYER_DAILY_LIMIT_XAF: HIGH_CAP_XAF, MERCHANT_DAILY_LIMIT_XAF: HIGH_CAP_XAF },
    adds:
      "PAYER_DAILY_LIMIT_XAF and MERCHANT_DAILY_LIMIT_XAF set far above the run's spending " +
      "(the day's spending is counted with or without caps)",
  },
  {
    name: "+ approvals",
    env: { APPROVAL_THRESHOLD_XAF: APPROVAL_ABOVE_XAF },
    adds: `APPROVAL_THRESHOLD_XAF=${APPROVAL_ABOVE_XAF}, above the 5,000 XAF paid: looked at, never waited for`,
  },
  {
    name: "+ durable writes",
    env: { REDIS_DURABILITY: "auto" },
    adds: "REDIS_DURABILITY=auto with a replica online: WAIT 1 after the money writes",
  },
];

/** `--only=pay-guards`: the product on the ladder of its guards, and the floor. */
export async function benchPayGuards(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  return withOwnRedisAndSandbox({ replica: true }, async (redis, sandbox) => {
    const userIds = userIdsFrom(3201);
    let env = productEnv(sandbox, redis.tcpUrl, "", userIds);
    const starts = LADDER.map((rung, index) => {
      env = { ...env, ...rung.env, REDIS_KEY_PREFIX: `bench:guards:${index}:` };
      const rungEnv = env;
      return () => startVariantBot(rung.name, "app", rungEnv, userIds);
    });
    const floorEnv = { ...env, REDIS_KEY_PREFIX: "bench:guards:floor:" };
    starts.push(() => startVariantBot("floor", "floor", floorEnv, userIds));
    let driven: Variant[] = [];
    const rows = await withVariants(context, starts, async (variants) => {
      driven = variants;
      await driveRounds(context, scale, redis, variants);
      const figures = variants.map(figuresOf);
      const floor = figures.at(-1);
      if (!floor) throw new Error("no floor");
      return guardRows(figures.slice(0, -1), floor, scale);
    });
    // The bots have stopped: their profiles are written.
    const stoppedAt = performance.now();
    const profileDir = process.env.BENCH_CPU_PROF;
    return profileDir ? [...rows, ...profileRows(profileDir, driven, stoppedAt)] : rows;
  });
}

/**
 * What a profile cannot tell apart by configuration: the product's CPU by what the code is
 * for, from each sample's nearest frame of our code (cpu-split.ts). First match wins.
 */
const PROFILE_GROUPS: ReadonlyArray<readonly [string, RegExp]> = [
  ["audit log", /audit/],
  ["durable writes (WAIT)", /durability/],
  ["duplicates", /duplicates|repeats/],
  ["daily caps and spending", /limits|spending/],
  ["approvals", /approval/],
  ["roles and access", /access|staff|people/],
  ["throttles and rate limit", /throttle|rate-limit/],
  ["the payout's record and moves (store)", /^src\/store\//],
  ["payout steps (src/payouts)", /^src\/payouts\//],
  ["Telegram side (src/bot)", /^src\/bot\//],
  ["Payment API client (src/payments)", /^src\/payments\//],
  ["the floor bot's code", /^bench\/floor-bot/],
  ["the rest of our code", /^(src|bench)\//],
  ["garbage collection", /garbage collection/],
  ["outside our code (no frame of ours)", /./],
];

function groupOf(module: string): string {
  return PROFILE_GROUPS.find(([, pattern]) => pattern.test(module))?.[0] ?? "other";
}

/** The profile of a bot process that has exited, by its pid; undefined when none is found. */
function profileOf(dir: string, pid: number | undefined): string | undefined {
  if (pid === undefined) return undefined;
  const name = readdirSync(dir).find(
    (file) => file.includes(`.${pid}.`) && file.endsWith(".cpuprofile"),
  );
  return name === undefined ? undefined : join(dir, name);
}

/** BENCH_CPU_PROF: each bot's CPU per update by group, against the first rung and the floor. */
function profileRows(dir: string, variants: readonly Variant[], stoppedAt: number): Row[] {
  const perGroup = variants.map((variant) => {
    const file = profileOf(dir, variant.bot.child.pid);
    const groups = new Map<string, number>();
    if (!file) return { variant, groups, file };
    const split = cpuSplit(file, { lastMs: stoppedAt - variant.warmupAt });
    // A sample's time is wall time (a busy machine stretches it): its share of the busy
    // samples is what counts, applied to the CPU per update process.cpuUsage() measured.
    const cpuMs = median(variant.samples.cpuMsPerUpdate);
    for (const [module, ms] of split.byModule) {
      const group = groupOf(module);
      groups.set(group, (groups.get(group) ?? 0) + (cpuMs * ms) / split.busyMs);
    }
    return { variant, groups, file };
  });
  const first = perGroup[0];
  const top = perGroup.at(-2);
  const floor = perGroup.at(-1);
  if (!first?.file || !top?.file || !floor?.file) return [];
  return PROFILE_GROUPS.map(([group], index) =>
    row({
      bench: GUARDS_BENCH,
      figure: `profile: CPU per update in ${group}, ${top.variant.name}`,
      value: top.groups.get(group) ?? 0,
      unit: "ms",
      baseline: first.groups.get(group) ?? 0,
      floor: floor.groups.get(group) ?? 0,
      target: "",
      met: null,
      ...(index === 0
        ? {
            note:
              "BENCH_CPU_PROF: each bot's V8 profile from its warm-up to its exit (its start " +
              "left out), each sample charged to the module of the nearest frame of our code " +
              "(cpu-split.ts), grouped by what the module is for; a group's share of the busy " +
              "samples times the bot's CPU per update (the rows above). Value: " +
              `the top rung (${top.variant.name}); baseline: the first rung ` +
              `(${first.variant.name}); floor: the floor bot. A profiler's samples: ` +
              "a few percent either way.",
          }
        : {}),
    }),
  );
}

function guardRows(rungs: readonly Figures[], floor: Figures, scale: Scale): Row[] {
  const users = `${CONCURRENT_USERS} users`;
  const rows: Row[] = [];
  rungs.forEach((figures, index) => {
    const rung = LADDER[index];
    if (!rung) return;
    const below = index === 0 ? null : rungs[index - 1];
    const common = { bench: GUARDS_BENCH, target: "", met: null };
    const delta = below ? figures.cpuMs - below.cpuMs : 0;
    const step = `${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(3)} ms over the rung below`;
    rows.push(
      row({
        ...common,
        figure: `bot CPU per update, ${rung.name}, ${users}`,
        value: figures.cpuMs,
        unit: "ms",
        baseline: below?.cpuMs ?? null,
        floor: floor.cpuMs,
        note:
          `${rung.name}: ${rung.adds}. ` +
          (below
            ? `Baseline: the rung below (${step}). `
            : "No baseline: the first rung; against the floor it is what cannot be switched off. ") +
          (index === 0
            ? "Each rung is a bot process of its own with its own keys on one redis-server of " +
              "the benchmark's own (with a replica for the last rung to wait for), driven in " +
              `turn with the floor, ${scale.rounds} rounds of ${scale.driveMs} ms each, the order ` +
              `reversed every other round; medians of the rounds. ${BUSY_NOTE}`
            : ""),
      }),
      row({
        ...common,
        figure: `Redis commands per update, ${rung.name}`,
        value: figures.redisCommands,
        unit: "",
        baseline: below?.redisCommands ?? null,
        floor: floor.redisCommands,
        note:
          (index === 0
            ? "INFO stats of the benchmark's redis-server over each bot's drive, per update " +
              "handled: commands (those a Lua script runs counted one by one, EVALSHA and " +
              "WAIT included) and bytes read plus written (replication not counted). "
            : "") +
          `Most called, per update: ${figures.topCommands}` +
          (index === 0 ? `; the floor: ${floor.topCommands}.` : "."),
      }),
      row({
        ...common,
        figure: `Redis bytes per update, ${rung.name}`,
        value: figures.redisBytes,
        unit: "B",
        baseline: below?.redisBytes ?? null,
        floor: floor.redisBytes,
      }),
    );
  });
  const top = rungs.at(-1);
  const bottom = rungs[0];
  if (top && bottom) {
    for (const [name, figures] of [
      [LADDER[0]?.name ?? "", bottom],
      [LADDER.at(-1)?.name ?? "", top],
    ] as const) {
      rows.push(
        row({
          bench: GUARDS_BENCH,
          figure: `updates handled/s, ${name}, ${users}`,
          value: figures.updatesPerSecond,
          unit: "/s",
          baseline: null,
          floor: floor.updatesPerSecond,
          target: "",
          met: null,
        }),
        row({
          bench: GUARDS_BENCH,
          figure: `any step p99, ${name}, ${users} (n=${figures.steps})`,
          value: figures.p99,
          unit: "ms",
          baseline: null,
          floor: floor.p99,
          target: "",
          met: null,
        }),
      );
    }
  }
  return rows;
}
