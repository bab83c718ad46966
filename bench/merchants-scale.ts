/**
 * Benchmark 13: many merchants paying (issue 33, "Scale, measured"). One MERCHANTS_FILE with
 * N merchants (10 staff each, one Payment API key each, all on one sandbox that keeps each
 * key's payments apart), the real bot in 1 or 3 processes (replicas) on a Redis Cluster of 1
 * or 3 primaries (REDIS_CLUSTER_NODES), and emulated payers spread over the merchants, each
 * running /pay → prompt → Confirm → Pending in a closed loop with a pause before each action.
 * For each combination: updates handled per second, p99 of both steps, the bots' and each
 * shard's CPU (so the reader sees which was the limit), and the time to start with N
 * merchants; every figure against the 1-shard, 1-replica run of the same run.
 *
 * All four combinations use Telegram webhook mode through a round-robin balancer
 * (webhook-balancer.ts): with long polling one replica holds the poll lease and the others
 * only stand by (bot/telegram/poller.ts), so webhook mode is how replicas share updates.
 * Payouts stay pending at the sandbox and the status tracker polls hourly: the run measures
 * the interactive path; the tracker's cost per payout is measured by benchmarks 4 and 8.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plainText } from "../src/dev/telegram-emulator/index.js";
import { startSandbox } from "../src/sandbox/index.js";
import { type ReplicasUnderTest, startReplicas } from "./bots.js";
import { compiledRoot } from "./build.js";
import { type Throttling, throttlingBetween } from "./cpu-cap.js";
import { PAY_COMMAND } from "./drive.js";
import { payFlow, STEP_TIMEOUT_MS } from "./flows.js";
import { BenchCluster, type BenchClusterOptions, type NodeCounters } from "./redis-cluster.js";
import { type BenchContext, sleep } from "./setup.js";
import { percentile, type Row, row } from "./stats.js";
import { WebhookBalancer } from "./webhook-balancer.js";

const BENCH = "13 merchants paying";
export const STAFF_PER_MERCHANT = 10;
/** Issue 33: throughput grows ≥ 2.5× from 1 to 3 shards when Redis is the limit. */
const TARGET_SHARD_GAIN = 2.5;
/** A shard busier than this share of one core in the baseline run is taken as the limit. */
const REDIS_LIMIT_SHARE = 0.8;
const WEBHOOK_SECRET = "bench-merchants-scale";
const DAY_MS = 86_400_000;

export interface Scale {
  merchants: number;
  /** Payers driving at once, spread over the merchants (one per merchant in a full run). */
  users: number;
  /** Each payer's pause before sending /pay and before pressing Confirm. */
  thinkMs: number;
  warmMs: number;
  driveMs: number;
  /** After the drive, how long to count the commands of replicas left idle; none if unset. */
  idleMs?: number;
}

/**
 * A payer pauses 500 ms before each action: each merchant pays at most once a second, two
 * Payment API calls (the name lookup, the disbursement), well under its 300 a minute, while
 * 200 of them offer up to 400 updates a second: more than one 2-core machine handles.
 */
const FULL: Scale = { merchants: 200, users: 200, thinkMs: 500, warmMs: 10_000, driveMs: 30_000 };
const QUICK: Scale = { merchants: 4, users: 4, thinkMs: 500, warmMs: 500, driveMs: 2_500 };

export interface Combination {
  shards: number;
  replicas: number;
}

const COMBINATIONS: readonly Combination[] = [
  { shards: 1, replicas: 1 },
  { shards: 1, replicas: 3 },
  { shards: 3, replicas: 1 },
  { shards: 3, replicas: 3 },
];

export interface Measured extends Combination {
  updatesPerSecond: number;
  promptP99Ms: number;
  confirmP99Ms: number;
  /** Flows left unanswered over the drive, and why. */
  unanswered: string[];
  /** CPU time of every bot process over the drive, per second of it (1 = one core busy). */
  botCores: number;
  /** This process's CPU (the emulator, the sandbox, the balancer, the payers) likewise. */
  harnessCores: number;
  /** Share of the machine's CPU time (all cores, every process) busy over the drive. */
  machineBusyShare: number;
  /** Per shard: its CPU time over the drive per second of it. */
  shardCores: number[];
  /** Per shard: commands per second over the drive. */
  shardCommandsPerSecond: number[];
  /** Per shard: reads from client sockets per second over the drive. */
  shardReadsPerSecond: number[];
  /** Commands per second of all shards, with no payer acting (Scale's idleMs); NaN unset. */
  idleCommandsPerSecond: number;
  /** Per shard: its cgroup's throttling over the drive; [] when the shards are uncapped. */
  shardThrottling: Throttling[];
  /** Fork → ready of the first replica (all N merchants started). */
  startMs: number;
}

/** Telegram user id of merchant `index`'s staff member `member` (0 is the admin). */
function staffId(index: number, member: number): number {
  return 1_000_000 + index * 100 + member;
}

/** The payers who drive: payer 1 of every merchant, then payer 2 of every merchant, … */
function driverIds(scale: Scale): number[] {
  return Array.from({ length: scale.users }, (_, n) => {
    const member = 1 + (Math.floor(n / scale.merchants) % (STAFF_PER_MERCHANT - 1));
    return staffId(n % scale.merchants, member);
  });
}

function merchantsFile(count: number, sandboxUrl: string, publicKeyPem: string) {
  return Array.from({ length: count }, (_, index) => ({
    id: `m-${index}`,
    name: `Merchant ${index}`,
    paymentApiKey: `bench-key-${index}`,
    paymentApiBaseUrl: sandboxUrl,
    paymentSignaturePublicKey: publicKeyPem,
    staff: Array.from({ length: STAFF_PER_MERCHANT }, (_, member) =>
      member === 0 ? `${staffId(index, 0)}:admin` : `${staffId(index, member)}:payer`,
    ).join(","),
  }));
}

/** What a closed-loop drive saw. */
interface Driven {
  /** Per step ("prompt", "confirm"), every sample in ms. */
  steps: Map<string, number[]>;
  /** Updates answered (each answered step is one). */
  updates: number;
  seconds: number;
  /** Flows the bot left without the expected answer within STEP_TIMEOUT_MS, and why. */
  unanswered: string[];
}

/**
 * Commands per second of all shards while the replicas sit idle for `idleMs`, after a
 * second for the drive's last writes: their timers' own load on Redis. NaN when unset.
 */
async function idleCommandsPerSecond(cluster: BenchCluster, idleMs?: number): Promise<number> {
  if (idleMs === undefined) return Number.NaN;
  const sum = (all: readonly NodeCounters[]) =>
    all.reduce((total, counters) => total + counters.commands, 0);
  await sleep(1000);
  const before = sum(await cluster.counters());
  const startedAt = performance.now();
  await sleep(idleMs);
  const after = sum(await cluster.counters());
  return (after - before) / ((performance.now() - startedAt) / 1000);
}

/** The machine's CPU time so far, all cores (/proc/stat, clock ticks): busy and in all. */
function machineTicks(): { busy: number; total: number } {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const ticks = cpu.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, tick) => sum + tick, 0);
    // idle and iowait
    return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** CPU time of every replica so far, in ms. */
async function replicasCpuMs(replicas: ReplicasUnderTest): Promise<number> {
  const all = await Promise.all(replicas.replicas.map((replica) => replica.usage()));
  return all.reduce((sum, usage) => sum + usage.cpuMs, 0);
}

/**
 * drive.ts's closed loop, except that a flow the bot leaves unanswered (past STEP_TIMEOUT_MS)
 * is counted with the last message in that chat, and the payer goes on: with hundreds of
 * payers on a machine past its capacity, one step over the deadline must not end the run.
 */
async function driveCounting(
  replicas: ReplicasUnderTest,
  scale: Scale,
  durationMs: number,
): Promise<Driven> {
  const driven: Driven = { steps: new Map(), updates: 0, seconds: 0, unanswered: [] };
  const record = (step: string, ms: number) => {
    driven.updates += 1;
    driven.steps.set(step, [...(driven.steps.get(step) ?? []), ms]);
  };
  const startedAt = performance.now();
  const stopAt = startedAt + durationMs;
  await Promise.all(
    replicas.users.slice(0, scale.users).map(async (user) => {
      while (performance.now() < stopAt) {
        try {
          const timing = await payFlow(user, replicas.watcher, PAY_COMMAND, scale.thinkMs);
          record("prompt", timing.promptMs);
          record("confirm", timing.confirmMs);
        } catch (error) {
          const last = replicas.emulator.messages(user.privateChat.id).at(-1);
          const said = last ? plainText(last).split("\n")[0] : "nothing";
          const reason = error instanceof Error ? error.message : String(error);
          driven.unanswered.push(`${reason}; the chat's last message: "${said}"`);
        }
      }
    }),
  );
  driven.seconds = (performance.now() - startedAt) / 1000;
  if (driven.unanswered.length > 0) {
    // Whether updates queued at the "Bot API" (delivery is one at a time) or were lost.
    const { pendingUpdateCount, lastErrorMessage } = replicas.emulator.webhook;
    driven.unanswered[0] +=
      ` (webhook at the end: ${pendingUpdateCount} updates queued, last delivery error: ` +
      `${lastErrorMessage ?? "none"})`;
  }
  return driven;
}

async function measure(
  context: BenchContext,
  scale: Scale,
  combination: Combination,
  cluster: BenchCluster,
  file: string,
): Promise<Measured> {
  const balancer = await WebhookBalancer.start();
  try {
    const env = {
      MERCHANTS_FILE: file,
      REDIS_URL: "",
      REDIS_CLUSTER_NODES: cluster.nodesEnv,
      TELEGRAM_WEBHOOK_URL: `${balancer.url}/telegram`,
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      HTTP_HOST: "127.0.0.1",
      HTTP_PORT: "0",
      STATUS_POLL_INTERVAL_MS: String(3_600_000),
      BUTTON_PRESSES_PER_MINUTE: "1000000",
      LOG_LEVEL: "silent",
    };
    // With one replica, this is the time to start with N merchants (the bot's JavaScript is
    // built before, not in the first run's time).
    compiledRoot();
    const forkedAtMs = performance.now();
    const replicas = await startReplicas(
      { mode: "merchants", userIds: driverIds(scale), env, startTogether: true },
      combination.replicas,
    );
    const startMs = performance.now() - forkedAtMs;
    try {
      for (const replica of replicas.replicas) {
        if (replica.httpUrl === null) throw new Error("a replica has no HTTP server");
        balancer.add(replica.httpUrl);
      }
      await driveCounting(replicas, scale, scale.warmMs);
      const cpuBefore = await cluster.cpuSeconds();
      const countersBefore = await cluster.counters();
      const throttlingBefore = cluster.throttling();
      const botCpuBefore = await replicasCpuMs(replicas);
      const harnessBefore = process.cpuUsage();
      const machineBefore = machineTicks();
      const driven = await driveCounting(replicas, scale, scale.driveMs);
      const { seconds } = driven;
      const harness = process.cpuUsage(harnessBefore);
      const machine = machineTicks();
      const botCpuMs = (await replicasCpuMs(replicas)) - botCpuBefore;
      const throttlingAfter = cluster.throttling();
      const cpuAfter = await cluster.cpuSeconds();
      const countersAfter = await cluster.counters();
      const perSecond = (pick: (counters: NodeCounters) => number) =>
        countersAfter.map((after, n) => {
          const before = countersBefore[n];
          return (pick(after) - (before ? pick(before) : 0)) / seconds;
        });
      return {
        ...combination,
        updatesPerSecond: driven.updates / seconds,
        promptP99Ms: percentile(driven.steps.get("prompt") ?? [], 99),
        confirmP99Ms: percentile(driven.steps.get("confirm") ?? [], 99),
        unanswered: driven.unanswered,
        botCores: botCpuMs / 1000 / seconds,
        harnessCores: (harness.user + harness.system) / 1e6 / seconds,
        machineBusyShare:
          (machine.busy - machineBefore.busy) / (machine.total - machineBefore.total),
        shardCores: cpuAfter.map((after, n) => (after - (cpuBefore[n] ?? 0)) / seconds),
        shardCommandsPerSecond: perSecond((counters) => counters.commands),
        shardReadsPerSecond: perSecond((counters) => counters.reads),
        idleCommandsPerSecond: await idleCommandsPerSecond(cluster, scale.idleMs),
        shardThrottling: throttlingAfter.map((after, n) =>
          throttlingBetween(throttlingBefore[n] ?? after, after),
        ),
        startMs: combination.replicas === 1 ? startMs : Number.NaN,
      };
    } finally {
      await replicas.close();
      context.log(`    stopped; ${combination.shards} shard(s) flushed`);
      await cluster.flush();
    }
  } finally {
    await balancer.close();
  }
}

export function label({ shards, replicas }: Combination): string {
  return `${shards} shard${shards === 1 ? "" : "s"} × ${replicas} replica${replicas === 1 ? "" : "s"}`;
}

export function percentOfCore(cores: number): string {
  return `${Math.round(cores * 100)}%`;
}

function rowsOf(scale: Scale, runs: readonly Measured[]): Row[] {
  const [base] = runs;
  if (!base) return [];
  const redisLimited = Math.max(...base.shardCores) >= REDIS_LIMIT_SHARE;
  const how =
    `${scale.merchants} merchants × ${STAFF_PER_MERCHANT} staff (MERCHANTS_FILE, one sandbox ` +
    `key each), ${scale.users} payers spread over them, closed loop with ${scale.thinkMs} ms ` +
    `before each action (so at most ${Math.round((scale.users * 1000) / scale.thinkMs)} ` +
    `updates/s even if the bot answered at once), ${scale.driveMs / 1000} s after ` +
    `${scale.warmMs / 1000} s of warm-up; ` +
    "webhook mode through a round-robin balancer; baseline: 1 shard × 1 replica, same run.";
  const where = runs
    .map(
      (run) =>
        `${label(run)}: bots ${percentOfCore(run.botCores)} of a core, shards ` +
        `${run.shardCores.map(percentOfCore).join(" / ")} (${run.shardCommandsPerSecond
          .map((rate) => Math.round(rate))
          .join(" / ")} commands/s)`,
    )
    .join("; ");
  const limit = redisLimited
    ? `The baseline's shard was ≥ ${percentOfCore(REDIS_LIMIT_SHARE)} busy: Redis was the limit`
    : `The baseline's shard stayed under ${percentOfCore(REDIS_LIMIT_SHARE)} of a core: Redis ` +
      "was not the limit, so the 2.5× target does not apply to this run";
  const rows: Row[] = [];
  for (const run of runs) {
    const threeShards = run.shards === 3;
    rows.push(
      row({
        bench: BENCH,
        figure: `updates/s, ${label(run)}`,
        value: run.updatesPerSecond,
        unit: "/s",
        baseline: base.updatesPerSecond,
        target: threeShards ? `≥ ${TARGET_SHARD_GAIN}× when Redis is the limit` : "",
        met:
          threeShards && redisLimited
            ? run.updatesPerSecond / base.updatesPerSecond >= TARGET_SHARD_GAIN
            : null,
        ...(run === base ? { note: `${how} CPU over the drive: ${where}. ${limit}.` } : {}),
      }),
      row({
        bench: BENCH,
        figure: `/pay → prompt p99, ${label(run)}`,
        value: run.promptP99Ms,
        unit: "ms",
        baseline: base.promptP99Ms,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `Confirm → Pending p99, ${label(run)}`,
        value: run.confirmP99Ms,
        unit: "ms",
        baseline: base.confirmP99Ms,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `flows unanswered within ${STEP_TIMEOUT_MS / 1000} s, ${label(run)}`,
        value: run.unanswered.length,
        unit: "",
        baseline: base.unanswered.length,
        target: "0",
        met: run.unanswered.length === 0,
        ...(run.unanswered.length > 0
          ? { note: `${run.unanswered.length} flows, first: ${run.unanswered[0]}` }
          : {}),
      }),
      row({
        bench: BENCH,
        figure: `busiest shard CPU, ${label(run)}`,
        value: Math.max(...run.shardCores) * 100,
        unit: "% core",
        baseline: Math.max(...base.shardCores) * 100,
        target: "",
        met: null,
      }),
      row({
        bench: BENCH,
        figure: `bot CPU (all replicas), ${label(run)}`,
        value: run.botCores * 100,
        unit: "% core",
        baseline: base.botCores * 100,
        target: "",
        met: null,
      }),
    );
    if (run.replicas === 1) {
      rows.push(
        row({
          bench: BENCH,
          figure: `start, ${scale.merchants} merchants, ${label(run)}`,
          value: run.startMs,
          unit: "ms",
          baseline: base.startMs,
          target: "",
          met: null,
          ...(run === base
            ? {
                note: "Fork of the bot's process until it reported ready (every merchant's runtime started, the webhook set).",
              }
            : {}),
        }),
      );
    }
  }
  return rows;
}

/**
 * Runs `combinations` (1-shard ones first) with `scale`'s merchants and payers on one
 * sandbox, a cluster per shard count (`clusterOptions`: e.g. each node's CPU cap).
 */
export async function measureCombinations(
  context: BenchContext,
  scale: Scale,
  combinations: readonly Combination[],
  clusterOptions: BenchClusterOptions = {},
): Promise<Measured[]> {
  const sandbox = await startSandbox({
    rateLimitPerMinute: 0,
    settleDelayMs: DAY_MS,
    accounts: Array.from({ length: scale.merchants }, (_, index) => [`bench-key-${index}`]),
  });
  const dir = mkdtempSync(join(tmpdir(), "bench-merchants-scale-"));
  try {
    const file = join(dir, "merchants.json");
    writeFileSync(
      file,
      JSON.stringify(merchantsFile(scale.merchants, sandbox.url, sandbox.publicKeyPem)),
    );
    const runs: Measured[] = [];
    for (const shards of [...new Set(combinations.map((c) => c.shards))]) {
      const cluster = await BenchCluster.start(shards, clusterOptions);
      try {
        for (const combination of combinations.filter((c) => c.shards === shards)) {
          context.log(`  ${label(combination)}, ${scale.merchants} merchants`);
          runs.push(await measure(context, scale, combination, cluster, file));
        }
      } finally {
        await cluster.close();
      }
    }
    return runs;
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMerchantsScale(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  return rowsOf(scale, await measureCombinations(context, scale, COMBINATIONS));
}
