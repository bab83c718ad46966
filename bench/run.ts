/**
 * `npm run bench [-- --quick] [-- --only=<name>,…] [-- --shard-cpu=<share>]`: runs every benchmark in turn, prints
 * one table (figure, value, baseline, ratio, target, met?) and writes bench/results.json
 * with the same rows and the machine's facts. Targets are in shared/DESIGN.md; every
 * figure is measured against a baseline run side by side in the same run, because the
 * machines are shared and noisy.
 *
 * Exit code: 0 when every benchmark ran (whatever its numbers), 1 when one crashed or
 * Redis is missing. `--quick` runs each for a few seconds (CI checks they still run).
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { redactUrlCredentials } from "../src/logger.js";
import { benchBatch } from "./batch.js";
import { benchClientOverhead } from "./client-overhead.js";
import { benchEvents } from "./events.js";
import { benchFootprint } from "./footprint.js";
import { benchLatency } from "./latency.js";
import { benchMerchants } from "./merchants.js";
import { benchMerchantsScale } from "./merchants-scale.js";
import { benchMerchantsShards } from "./merchants-shards.js";
import { benchNotify } from "./notify.js";
import { benchPayGuards } from "./pay-guards.js";
import { benchPayRoundTrip } from "./pay-roundtrip.js";
import { benchPayUnix } from "./pay-variants.js";
import { benchPayWebhook } from "./pay-webhook.js";
import { benchRateLimit } from "./rate-limit.js";
import { benchRoundTrips } from "./round-trips.js";
import { benchSchedules } from "./schedules.js";
import { type BenchContext, benchRedisUrl, connectRedis } from "./setup.js";
import { formatTable, machineInfo, type Row } from "./stats.js";
import { benchWebappHistory } from "./webapp-history.js";

interface Benchmark {
  name: string;
  title: string;
  run: (context: BenchContext) => Promise<Row[]>;
  /** Longest it may take in full mode (quick: a quarter); past it, it counts as crashed. */
  budgetMs: number;
}

const BENCHMARKS: readonly Benchmark[] = [
  {
    name: "pay",
    title: "1 /pay round trip",
    run: benchPayRoundTrip,
    budgetMs: 240_000,
  },
  {
    name: "pay-webhook",
    title: "1 /pay round trip, webhook",
    run: benchPayWebhook,
    budgetMs: 180_000,
  },
  {
    name: "pay-unix",
    title: "1 /pay round trip, Redis over a Unix socket",
    run: benchPayUnix,
    // Full: 3 bots started (the first start of a run also builds), 4 rounds of 8 s each.
    budgetMs: 300_000,
  },
  {
    name: "pay-guards",
    title: "1 /pay round trip, the guards' cost",
    run: benchPayGuards,
    // Full: 6 bots started, 4 rounds of 8 s each.
    budgetMs: 480_000,
  },
  {
    name: "client",
    title: "2 client overhead",
    run: benchClientOverhead,
    budgetMs: 180_000,
  },
  {
    name: "rate-limit",
    title: "3 rate-limit use",
    run: benchRateLimit,
    budgetMs: 180_000,
  },
  { name: "notify", title: "4 notify", run: benchNotify, budgetMs: 180_000 },
  { name: "footprint", title: "5 footprint", run: benchFootprint, budgetMs: 180_000 },
  { name: "latency", title: "6 latency", run: benchLatency, budgetMs: 300_000 },
  { name: "round-trips", title: "7 round trips", run: benchRoundTrips, budgetMs: 120_000 },
  // Full mode: about 10 minutes of batch at the production limit, plus a 90 s baseline.
  { name: "batch", title: "8 batch", run: benchBatch, budgetMs: 1_500_000 },
  { name: "events", title: "9 events", run: benchEvents, budgetMs: 240_000 },
  { name: "schedules", title: "10 schedules", run: benchSchedules, budgetMs: 240_000 },
  {
    name: "webapp-history",
    title: "11 mini app history",
    run: benchWebappHistory,
    budgetMs: 600_000,
  },
  { name: "merchants", title: "12 merchants at rest", run: benchMerchants, budgetMs: 240_000 },
  // Full mode: 200 merchants started six times (once per bot process), four 40 s drives.
  {
    name: "merchants-scale",
    title: "13 merchants paying",
    run: benchMerchantsScale,
    budgetMs: 1_800_000,
  },
  // The same with each shard's CPU capped (cgroup): four 40 s drives; skipped without cgroups.
  {
    name: "merchants-shards",
    title: "13 merchants paying, shards capped",
    run: benchMerchantsShards,
    budgetMs: 1_200_000,
  },
];

const RESULTS_PATH = fileURLToPath(new URL("results.json", import.meta.url));

interface Args {
  quick: boolean;
  only: Set<string> | undefined;
  shardCpu: number | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  let quick = false;
  let only: Set<string> | undefined;
  let shardCpu: number | undefined;
  for (const arg of argv) {
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--only=")) only = new Set(arg.slice("--only=".length).split(","));
    else if (arg.startsWith("--shard-cpu=")) {
      shardCpu = Number(arg.slice("--shard-cpu=".length));
      if (!(shardCpu > 0 && shardCpu <= 1))
        throw new Error(`--shard-cpu is a share of one core in (0, 1], e.g. 0.02, not ${arg}`);
    } else
      throw new Error(
        `unknown argument ${arg}; use --quick, --only=<name>,… and/or --shard-cpu=<share>`,
      );
  }
  const known = new Set(BENCHMARKS.map((bench) => bench.name));
  for (const name of only ?? []) {
    if (!known.has(name))
      throw new Error(`no benchmark "${name}"; known: ${[...known].join(", ")}`);
  }
  return { quick, only, shardCpu };
}

function withinBudget<T>(work: Promise<T>, budgetMs: number, title: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${title} took longer than ${budgetMs / 1000} s`)),
      budgetMs,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function crashRow(bench: Benchmark, error: unknown): Row {
  const message = error instanceof Error ? error.message : String(error);
  return {
    bench: bench.title,
    figure: "CRASHED",
    value: null,
    unit: "",
    baseline: null,
    ratio: null,
    target: "runs",
    met: false,
    note: `${bench.title} crashed: ${message.split("\n")[0] ?? ""}`,
  };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const redisUrl = benchRedisUrl();
  const probe = await connectRedis(redisUrl);
  probe.disconnect();
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const context: BenchContext = {
    quick: args.quick,
    redisUrl,
    log,
    ...(args.shardCpu === undefined ? {} : { shardCpu: args.shardCpu }),
  };
  const rows: Row[] = [];
  const crashed: string[] = [];
  const startedAt = performance.now();
  for (const bench of BENCHMARKS) {
    if (args.only && !args.only.has(bench.name)) continue;
    const budgetMs = args.quick ? bench.budgetMs / 4 : bench.budgetMs;
    log(`${bench.title}…`);
    const benchStartedAt = performance.now();
    try {
      rows.push(...(await withinBudget(bench.run(context), budgetMs, bench.title)));
    } catch (error) {
      log(`${bench.title} crashed: ${error instanceof Error ? error.stack : String(error)}`);
      crashed.push(bench.name);
      rows.push(crashRow(bench, error));
    }
    log(`  done in ${((performance.now() - benchStartedAt) / 1000).toFixed(1)} s`);
  }
  const totalSeconds = (performance.now() - startedAt) / 1000;
  const machine = machineInfo();
  process.stdout.write(
    `\nBenchmarks (${args.quick ? "quick" : "full"} mode, ${totalSeconds.toFixed(0)} s; ` +
      `node ${machine.node}, ${machine.cpuCount}× ${machine.cpuModel}, ${machine.date})\n\n`,
  );
  process.stdout.write(`${formatTable(rows)}\n`);
  const results = {
    mode: args.quick ? "quick" : "full",
    totalSeconds,
    machine,
    redisUrl: redactUrlCredentials(redisUrl),
    crashed,
    rows,
  };
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(`results written to ${RESULTS_PATH}\n`);
  return crashed.length > 0 ? 1 : 0;
}

main().then(
  // Leftover keep-alive sockets or timers must not hold the process open.
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
