/**
 * The IPC messages between the harness and its child processes, as zod schemas: both
 * sides import them from here (a child's own module runs its `main` when imported).
 */
import { z } from "zod";

/** Parent → child. */
export const CommandSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("stop") }),
  z.object({ type: z.literal("memory") }),
  z.object({ type: z.literal("usage") }),
  z.object({ type: z.literal("go"), startAtMs: z.number() }),
  // To the relay process (relay-process.ts).
  z.object({
    type: z.literal("relay"),
    name: z.string(),
    targetHost: z.string(),
    targetPort: z.number().int(),
  }),
  z.object({
    type: z.literal("delays"),
    upstreamMs: z.number().min(0),
    downstreamMs: z.number().min(0),
    names: z.array(z.string()),
  }),
  z.object({ type: z.literal("counters") }),
]);
export type Command = z.infer<typeof CommandSchema>;

/** A bot child is running; `httpUrl` is the app's HTTP server (null for the echo bot). */
export const BotReadySchema = z.object({
  type: z.literal("ready"),
  httpUrl: z.string().nullable(),
});

/** A bot child's memory, measured after two forced GCs when `--expose-gc` is on. */
export const MemorySchema = z.object({
  type: z.literal("memory"),
  rssBytes: z.number(),
  heapUsedBytes: z.number(),
  /** Peak RSS of the process so far. */
  maxRssBytes: z.number(),
  gcForced: z.boolean(),
});
export type MemoryReport = z.infer<typeof MemorySchema>;

/** CPU time a child has used so far (user + system), in microseconds. */
export const UsageSchema = z.object({
  type: z.literal("usage"),
  cpuMicros: z.number(),
  /** read and write system calls so far (Linux's /proc/self/io), null where unknown. */
  readCalls: z.number().nullable(),
  writeCalls: z.number().nullable(),
});

/** A sandbox child is listening. */
export const SandboxReadySchema = z.object({
  type: z.literal("ready"),
  url: z.string(),
  apiKey: z.string(),
  publicKeyPem: z.string(),
});

/** The configuration of a rate-limit worker (env BENCH_RL_CONFIG, JSON). */
export const RateLimitWorkerConfigSchema = z.object({
  url: z.string(),
  apiKey: z.string(),
  paymentId: z.string(),
  redisUrl: z.string(),
  limiterKey: z.string(),
  limit: z.number().int().positive(),
  windowMs: z.number().int().positive(),
  durationMs: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  /** A bound on calls whatever happens. */
  maxCalls: z.number().int().positive(),
});
export type RateLimitWorkerConfig = z.infer<typeof RateLimitWorkerConfigSchema>;

/** A rate-limit worker has its client and limiter and waits for `go`. */
export const WorkerReadySchema = z.object({ type: z.literal("ready") });

/** What one rate-limit worker achieved. */
export const WorkerResultSchema = z.object({
  type: z.literal("result"),
  ok: z.number().int(),
  rejected429: z.number().int(),
  otherErrors: z.number().int(),
  /** The first error message that was neither a success nor a 429, for the report. */
  firstOtherError: z.string().nullable(),
  firstOkAtMs: z.number().nullable(),
  lastOkAtMs: z.number().nullable(),
});
export type WorkerResult = z.infer<typeof WorkerResultSchema>;

/** The relay process is listening, and has no relay yet. */
export const RelayProcessReadySchema = z.object({ type: z.literal("ready") });

/** A relay named `name` listens on 127.0.0.1:`port`. */
export const RelayStartedSchema = z.object({
  type: z.literal("relay"),
  name: z.string(),
  port: z.number().int(),
});

/** The delays asked for are set. */
export const DelaysSetSchema = z.object({ type: z.literal("delays-set") });

const CountersSchema = z.object({
  connections: z.number().int(),
  roundTrips: z.number().int(),
  bytesUp: z.number().int(),
  bytesDown: z.number().int(),
});
export type Counters = z.infer<typeof CountersSchema>;

/** Every relay's counters, by name. */
export const RelayCountersSchema = z.object({
  type: z.literal("counters"),
  relays: z.record(z.string(), CountersSchema),
});
