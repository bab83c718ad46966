/**
 * Benchmark 13, shards capped (`--only=merchants-shards`, issue 33: "throughput grows ≥ 2.5×
 * from 1 to 3 shards when Redis is the limit"). Benchmark 13's merchants and payers
 * (merchants-scale.ts), but each shard's redis-server gets a fixed CPU budget, a cgroup v1
 * CFS quota of `--shard-cpu` of one core (cpu-cap.ts), as if each shard were a small machine
 * of its own. On one machine whose cores the bots, the harness and every shard share, an
 * uncapped Redis is never the limit (benchmark 13: 11% of a core for 381 updates a second);
 * capped, one shard is, and three shards have three times its budget, so the run shows
 * whether the work spreads over them.
 *
 * The payers think 200 ms (not 500) before each action, so the load offered (up to 1,000
 * updates a second) stays above what three capped shards can serve. Each shard's CPU (INFO
 * cpu) and its group's throttled periods (cpu.stat) show which was the limit: a shard that is
 * uses its whole budget and is throttled in most periods. Skipped, with the reason printed
 * and in the results, where no writable cgroup cpu controller exists (not root, a container).
 */
import { cpus } from "node:os";
import { cpuCapUnavailable, periodAndQuota, type Throttling } from "./cpu-cap.js";
import {
  type Combination,
  label,
  type Measured,
  measureCombinations,
  percentOfCore,
  type Scale,
  STAFF_PER_MERCHANT,
} from "./merchants-scale.js";
import type { BenchContext } from "./setup.js";
import { type Row, row } from "./stats.js";

const BENCH = "13 merchants paying, shards capped";
/** Issue 33: throughput grows ≥ 2.5× from 1 to 3 shards when Redis is the limit. */
const TARGET_SHARD_GAIN = 2.5;
/**
 * Each shard's budget by default: one shard serves about 60 updates a second with it, three
 * about 175, which the bots and the harness still serve on two busy cores (at 0.03, three
 * shards' 240 were more than a busy 2-core machine had left, and they were not the limit).
 */
export const DEFAULT_SHARD_CPU = 0.02;
/** A shard that used this share of its budget, throttled in this share of periods, was the limit. */
const SATURATED_SHARE_OF_BUDGET = 0.9;
const SATURATED_THROTTLED_PERIODS = 0.5;

const FULL: Scale = {
  merchants: 200,
  users: 200,
  thinkMs: 200,
  warmMs: 10_000,
  driveMs: 30_000,
  idleMs: 5_000,
};
const QUICK: Scale = {
  merchants: 4,
  users: 4,
  thinkMs: 200,
  warmMs: 500,
  driveMs: 2_500,
  idleMs: 500,
};

const COMBINATIONS: readonly Combination[] = [
  { shards: 1, replicas: 1 },
  { shards: 1, replicas: 3 },
  { shards: 3, replicas: 1 },
  { shards: 3, replicas: 3 },
];
/** Quick mode (CI) only checks the cap works, with one replica. */
const QUICK_COMBINATIONS = COMBINATIONS.filter((c) => c.replicas === 1);

function throttledShare(throttling: Throttling | undefined): number {
  if (!throttling || throttling.periods === 0) return 0;
  return throttling.throttledPeriods / throttling.periods;
}

/** Every shard of the run used ≥ 90% of its budget and was throttled in most periods. */
function redisWasTheLimit(run: Measured, share: number): boolean {
  return run.shardCores.every(
    (cores, n) =>
      cores >= SATURATED_SHARE_OF_BUDGET * share &&
      throttledShare(run.shardThrottling[n]) >= SATURATED_THROTTLED_PERIODS,
  );
}

/** A share of one core with one decimal: the budgets are a few percent. */
function percentOfCoreFine(cores: number): string {
  return `${(cores * 100).toFixed(1)}%`;
}

function shardsText(run: Measured, share: number): string {
  return run.shardCores
    .map((cores, n) => {
      const throttling = run.shardThrottling[n];
      return (
        `${percentOfCoreFine(cores)} of a core (${Math.round((cores / share) * 100)}% of its budget, ` +
        `throttled in ${Math.round(throttledShare(throttling) * 100)}% of ` +
        `${throttling?.periods ?? 0} periods, ${Math.round(run.shardCommandsPerSecond[n] ?? 0)} ` +
        `commands/s, ${commandsPerRead(run, n).toFixed(1)} per socket read)`
      );
    })
    .join(" / ");
}

function commandsPerRead(run: Measured, shard: number): number {
  return (run.shardCommandsPerSecond[shard] ?? 0) / (run.shardReadsPerSecond[shard] ?? 0);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The run this one is compared with: 1 shard, same replicas; 1 × 1 for 1 shard × 3. */
function baselineOf(run: Measured, runs: readonly Measured[]): Measured | undefined {
  const replicas = run.shards === 1 ? 1 : run.replicas;
  return runs.find((other) => other.shards === 1 && other.replicas === replicas);
}

/**
 * The ≥ 2.5× target, judged only when 1 shard was the limit; a shortfall counts only when
 * the 3 shards were the limit too (else the bots or the machine capped them: not judged).
 */
function shardGainMet(
  run: Measured,
  base: Measured,
  limited: boolean,
  baseLimited: boolean,
): boolean | null {
  if (run.shards !== 3 || !baseLimited) return null;
  if (run.updatesPerSecond / base.updatesPerSecond >= TARGET_SHARD_GAIN) return true;
  return limited ? false : null;
}

function rowsOf(scale: Scale, share: number, runs: readonly Measured[]): Row[] {
  const { periodUs, quotaUs } = periodAndQuota(share);
  const how =
    `Each shard's redis-server in a cgroup of its own capped at ${percentOfCoreFine(share)} of a ` +
    `core (CFS quota ${quotaUs / 1000} ms every ${periodUs / 1000} ms); ${scale.merchants} ` +
    `merchants × ${STAFF_PER_MERCHANT} staff, ${scale.users} payers, closed loop with ` +
    `${scale.thinkMs} ms before each action (at most ` +
    `${Math.round((scale.users * 1000) / scale.thinkMs)} updates/s offered), ` +
    `${scale.driveMs / 1000} s after ${scale.warmMs / 1000} s of warm-up; webhook mode ` +
    "through a round-robin balancer. Baseline of a 3-shard run: 1 shard with the same " +
    "replicas; of 1 shard × 3 replicas: 1 shard × 1 replica.";
  const rows: Row[] = [];
  for (const run of runs) {
    const base = baselineOf(run, runs) ?? run;
    const limited = redisWasTheLimit(run, share);
    const baseLimited = redisWasTheLimit(base, share);
    const threeShards = run.shards === 3;
    const limitText = limited
      ? "every shard used its budget and was throttled: Redis was the limit"
      : "Redis was not the limit (a shard under 90% of its budget or rarely throttled)";
    const gainText = !threeShards
      ? ""
      : baseLimited
        ? ` Gain ${(run.updatesPerSecond / base.updatesPerSecond).toFixed(2)}× over ${label(base)}, where Redis was the limit${limited ? "" : "; here it was not, so the gain is a floor set by something else (the bots, the machine, the load offered)"}.`
        : ` ${label(base)} was not Redis-limited, so the ${TARGET_SHARD_GAIN}× target does not apply.`;
    rows.push(
      row({
        bench: BENCH,
        figure: `updates/s, ${label(run)}`,
        value: run.updatesPerSecond,
        unit: "/s",
        baseline: base === run ? null : base.updatesPerSecond,
        target: threeShards ? `≥ ${TARGET_SHARD_GAIN}× 1 shard` : "",
        met: shardGainMet(run, base, limited, baseLimited),
        note:
          `${run === runs[0] ? `${how} ` : ""}${label(run)}: shards ${shardsText(run, share)}; ` +
          `${Math.round(sum(run.shardCommandsPerSecond) / run.updatesPerSecond)} commands per ` +
          `update; bots ${percentOfCore(run.botCores)} of a core, the harness (emulator, sandbox, ` +
          `balancer, payers) ${percentOfCore(run.harnessCores)}, the whole machine ` +
          `${percentOfCore(run.machineBusyShare)} busy (every process, ${cpus().length} cores); ` +
          `${limitText}.${gainText}`,
      }),
      row({
        bench: BENCH,
        figure: `/pay → prompt p99, ${label(run)}`,
        value: run.promptP99Ms,
        unit: "ms",
        baseline: base === run ? null : base.promptP99Ms,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `Confirm → Pending p99, ${label(run)}`,
        value: run.confirmP99Ms,
        unit: "ms",
        baseline: base === run ? null : base.confirmP99Ms,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `flows unanswered, ${label(run)}`,
        value: run.unanswered.length,
        unit: "",
        baseline: null,
        target: "0",
        met: run.unanswered.length === 0,
        ...(run.unanswered.length > 0
          ? { note: `${run.unanswered.length} flows, first: ${run.unanswered[0]}` }
          : {}),
      }),
      row({
        bench: BENCH,
        figure: `busiest shard CPU, % of its budget, ${label(run)}`,
        value: (Math.max(...run.shardCores) / share) * 100,
        unit: "%",
        baseline: null,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `least throttled shard, % of periods throttled, ${label(run)}`,
        value: Math.min(...run.shardThrottling.map(throttledShare)) * 100,
        unit: "%",
        baseline: null,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `commands/s with no payer acting (all shards), ${label(run)}`,
        value: run.idleCommandsPerSecond,
        unit: "/s",
        baseline: null,
        target: "",
        met: null,
        ...(run === runs[0]
          ? {
              note: `Counted over ${(scale.idleMs ?? 0) / 1000} s after the drive: the replicas' own timers (every merchant's loops), which each replica runs.`,
            }
          : {}),
      }),
      row({
        bench: BENCH,
        figure: `machine CPU busy (all cores, every process), ${label(run)}`,
        value: run.machineBusyShare * 100,
        unit: "%",
        baseline: null,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `bot CPU (all replicas), ${label(run)}`,
        value: run.botCores * 100,
        unit: "% core",
        baseline: null,
        target: "",
        met: null,
      }),
    );
  }
  return rows;
}

function skipped(reason: string): Row[] {
  return [
    row({
      bench: BENCH,
      figure: "skipped: no CPU cap for the shards here",
      value: null,
      unit: "",
      baseline: null,
      target: "",
      met: null,
      note: `Skipped: ${reason}. It needs a writable cgroup v1 cpu controller (root on Linux).`,
    }),
  ];
}

export async function benchMerchantsShards(context: BenchContext): Promise<Row[]> {
  const unavailable = cpuCapUnavailable();
  if (unavailable !== null) {
    context.log(`  skipped: ${unavailable}`);
    return skipped(unavailable);
  }
  const share = context.shardCpu ?? DEFAULT_SHARD_CPU;
  const scale = context.quick ? QUICK : FULL;
  const combinations = context.quick ? QUICK_COMBINATIONS : COMBINATIONS;
  const { periodUs, quotaUs } = periodAndQuota(share);
  context.log(
    `  each shard capped at ${percentOfCoreFine(share)} of a core (${quotaUs} µs every ${periodUs} µs)`,
  );
  const runs = await measureCombinations(context, scale, combinations, { cpuShare: share });
  return rowsOf(scale, share, runs);
}
