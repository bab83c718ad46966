/**
 * Benchmark 2: what PaymentClient costs over a bare HTTP request. `getPayment` against a
 * raw undici Pool request to the same sandbox endpoint (GET /payments/{id} with
 * X-API-Key, body read and JSON-parsed), same concurrency, same number of requests. The
 * sandbox runs in its own process, so this process holds only the client under test.
 * Runs alternate raw / client (A B B A …, so neither side always goes first) and each
 * side's median counts.
 */
import type { Redis } from "ioredis";
import { Pool } from "undici";
import { PaymentClient } from "../src/payments/client.js";
import { RedisRateLimiter } from "../src/store/redis/rate-limiter.js";
import { forkBench, nextMessage, stopChild } from "./child.js";
import { SandboxReadySchema } from "./messages.js";
import { type BenchContext, pendingPayment, withPrefix } from "./setup.js";
import { median, type Row, row, runConcurrently } from "./stats.js";

const BENCH = "2 client overhead";
const CONCURRENCY = 16;
const TARGET_RATIO = 0.85;
/** A bound on one run whatever the speed. */
const RUN_DEADLINE_MS = 60_000;

interface Scale {
  requests: number;
  warmupRequests: number;
  /** Pairs of runs (raw, client). */
  rounds: number;
}

const QUICK: Scale = { requests: 1500, warmupRequests: 300, rounds: 2 };
const FULL: Scale = { requests: 10_000, warmupRequests: 2000, rounds: 6 };

type Get = () => Promise<void>;

/** The baseline: what anyone would write with undici and no client. */
function rawGet(pool: Pool, path: string, apiKey: string): Get {
  return async () => {
    const response = await pool.request({
      method: "GET",
      path,
      headers: { "x-api-key": apiKey, accept: "application/json" },
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`raw GET ${path}: ${response.statusCode}`);
    JSON.parse(text);
  };
}

interface RunFigures {
  perSecond: number;
  /** CPU (user + system) of this process per request: only the client (or raw undici) runs here. */
  cpuMicrosPerRequest: number;
}

async function measureRun(requests: number, get: Get): Promise<RunFigures> {
  const cpuBefore = process.cpuUsage();
  const { count, elapsedMs } = await runConcurrently(requests, CONCURRENCY, RUN_DEADLINE_MS, get);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    perSecond: count / (elapsedMs / 1000),
    cpuMicrosPerRequest: (cpu.user + cpu.system) / Math.max(1, count),
  };
}

interface Variant {
  figure: string;
  signResponses: boolean;
  verify: boolean;
  limiter: boolean;
  target: boolean;
  note: string;
}

const VARIANTS: readonly Variant[] = [
  {
    figure: "getPayment/s, verification off",
    signResponses: false,
    verify: false,
    limiter: false,
    target: true,
    note:
      `${CONCURRENCY} concurrent loops; baseline: undici Pool.request + body.text() + ` +
      "JSON.parse on the same endpoint; A B B A runs, medians. Sandbox in its own process.",
  },
  {
    figure: "getPayment/s, X-Sig verification on",
    signResponses: true,
    verify: true,
    limiter: false,
    target: false,
    note:
      "The sandbox signs every answer (RSA-2048, in its process) and the client verifies it; " +
      "the raw baseline reads the same signed answers without verifying.",
  },
  {
    figure: "getPayment/s, Redis rate limiter on",
    signResponses: false,
    verify: false,
    limiter: true,
    target: false,
    note:
      "As in production: one Redis EVALSHA (RedisRateLimiter, limit set too high to wait) " +
      "before every request.",
  },
];

async function measureVariant(
  context: BenchContext,
  scale: Scale,
  variant: Variant,
  redis: Redis,
  prefix: string,
): Promise<Row[]> {
  const child = forkBench("sandbox-process.ts", {
    env: { BENCH_SANDBOX_SIGN: variant.signResponses ? "1" : "0" },
  });
  try {
    const sandbox = await nextMessage(child, SandboxReadySchema, 30_000, "sandbox start");
    const paymentId = await pendingPayment(sandbox);
    const limiter = variant.limiter
      ? new RedisRateLimiter({ redis, key: `${prefix}ratelimit`, limit: 1e9, windowMs: 61_000 })
      : undefined;
    const client = new PaymentClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.apiKey,
      responseVerifyKeyPem: variant.verify ? sandbox.publicKeyPem : undefined,
      limiter,
    });
    const pool = new Pool(sandbox.url);
    try {
      const raw = rawGet(pool, `/payments/${encodeURIComponent(paymentId)}`, sandbox.apiKey);
      const viaClient: Get = async () => {
        await client.getPayment(paymentId);
      };
      await measureRun(scale.warmupRequests, raw);
      await measureRun(scale.warmupRequests, viaClient);
      const rawRuns: RunFigures[] = [];
      const clientRuns: RunFigures[] = [];
      // A B B A: whichever side runs first in a round runs on a process less warmed up (and
      // after the other side's garbage), so each side goes first in half of the rounds.
      for (let round = 1; round <= scale.rounds; round++) {
        const rawFirst = round % 2 === 1;
        const order = rawFirst ? "raw, then client" : "client, then raw";
        context.log(`  ${variant.figure}: round ${round}/${scale.rounds} (${order})`);
        if (rawFirst) rawRuns.push(await measureRun(scale.requests, raw));
        clientRuns.push(await measureRun(scale.requests, viaClient));
        if (!rawFirst) rawRuns.push(await measureRun(scale.requests, raw));
      }
      const value = median(clientRuns.map((run) => run.perSecond));
      const baseline = median(rawRuns.map((run) => run.perSecond));
      const rows = [
        row({
          bench: BENCH,
          figure: variant.figure,
          value,
          unit: "/s",
          baseline,
          target: variant.target ? `≥ ${TARGET_RATIO}× raw` : "",
          met: variant.target ? value / baseline >= TARGET_RATIO : null,
          note: variant.note,
        }),
      ];
      if (variant.target) {
        rows.push(
          row({
            bench: BENCH,
            figure: "CPU per getPayment, verification off",
            value: median(clientRuns.map((run) => run.cpuMicrosPerRequest)),
            unit: "µs",
            baseline: median(rawRuns.map((run) => run.cpuMicrosPerRequest)),
            target: "",
            met: null,
            note:
              "CPU time (user + system) of the benchmark's process per request, medians of " +
              "the same runs: that process holds only the client (or raw undici), the sandbox " +
              "runs in its own. Less noisy than a rate on a shared machine, where the sandbox " +
              "can be the bottleneck; when the client's process is, the rate ratio is about " +
              "the inverse of this one.",
          }),
        );
      }
      return rows;
    } finally {
      await client.close();
      await pool.close();
    }
  } finally {
    await stopChild(child);
  }
}

/** Runs benchmark 2 and returns its rows. */
export async function benchClientOverhead(context: BenchContext): Promise<Row[]> {
  const scale = context.quick ? QUICK : FULL;
  return withPrefix(context, "client", async (redis, prefix) => {
    const rows: Row[] = [];
    for (const variant of VARIANTS) {
      rows.push(...(await measureVariant(context, scale, variant, redis, prefix)));
    }
    return rows;
  });
}
