/**
 * `pay-guards` (issue 37, "the product's cost split"): the product on a ladder of its real
 * configuration, from the fewest guards the configuration allows (no duplicate warning, no
 * daily caps, no approvals, durable writes off) up to all of them (with a replica, so
 * REDIS_DURABILITY=auto waits for it), one guard added per rung, driven as pay-variants.ts
 * drives its variants, with the floor. A rung's figure against the rung below is what that
 * guard costs; the first rung against the floor is what no switch turns off (roles, audit,
 * the payout's durable record and its moves, throttles). With BENCH_CPU_PROF, each bot's
 * profile split by what our code's modules are for (cpu-split.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { cpuSplit } from "./cpu-split.js";
import { CONCURRENT_USERS } from "./pay-roundtrip.js";
import {
  BUSY_NOTE,
  driveRounds,
  type Figures,
  FULL,
  figuresOf,
  productEnv,
  QUICK,
  type Scale,
  startVariantBot,
  userIdsFrom,
  type Variant,
  withOwnRedisAndSandbox,
  withVariants,
} from "./pay-variants.js";
import type { BenchContext } from "./setup.js";
import { median, type Row, row } from "./stats.js";

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
