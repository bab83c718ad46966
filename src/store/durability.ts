/**
 * Durable writes: after the writes that money depends on (a payout's claim and last check
 * before sending, a payment id), the bot waits until Redis says they are persisted before
 * it goes on. Otherwise a Redis crash or a failover could roll a payout that was sent back
 * to "awaiting confirmation", and a second Confirm would pay twice.
 *
 * How to wait depends on the server, read from INFO:
 * - with a replica online: `WAIT 1` (the write is on another machine, so a failover to
 *   that replica keeps it);
 * - with the AOF on and a server that has `WAITAOF` (Redis 7.2+): `WAITAOF 1 0` (the
 *   write is fsynced to the local AOF, so a crash keeps it);
 * - with `appendfsync always`, every write is on disk before Redis answers: no wait;
 * - otherwise nothing can make a write durable, and the start-up log says so.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { type Logger, silentLogger } from "../logger.js";
import { isNoScript, type LuaScript, runScript } from "./lua.js";

/** What INFO tells about the server that decides how to wait. */
export interface ServerFacts {
  version: readonly number[];
  role: string;
  /** Replicas whose link is up (`state=online`). */
  onlineReplicas: number;
  aofEnabled: boolean;
  appendfsync: string;
}

export type WaitStep = "WAIT" | "WAITAOF";

export interface DurabilityPlan {
  steps: readonly WaitStep[];
  /** For the log: what a write is waited for. */
  summary: string;
  /** True when no wait can make a write durable on this server. */
  unprotected: boolean;
}

/** Reads the facts of `INFO server`, `INFO replication` and `INFO persistence` text. */
export function parseServerFacts(info: string): ServerFacts {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  const onlineReplicas = [...fields.entries()].filter(
    ([name, value]) => /^slave\d+$/.test(name) && /(^|,)state=online(,|$)/.test(value),
  ).length;
  return {
    version: (fields.get("redis_version") ?? "0").split(".").map((part) => Number(part) || 0),
    role: fields.get("role") ?? "unknown",
    onlineReplicas,
    aofEnabled: fields.get("aof_enabled") === "1",
    appendfsync: fields.get("appendfsync") ?? "",
  };
}

function atLeast(version: readonly number[], major: number, minor: number): boolean {
  const [have = 0, haveMinor = 0] = version;
  return have > major || (have === major && haveMinor >= minor);
}

/** How to wait for a write on a server with these facts. */
export function planDurability(facts: ServerFacts): DurabilityPlan {
  const steps: WaitStep[] = [];
  const parts: string[] = [];
  if (facts.onlineReplicas > 0) {
    steps.push("WAIT");
    parts.push("a replica (WAIT)");
  }
  const fsyncAlways = facts.aofEnabled && facts.appendfsync === "always";
  if (fsyncAlways) parts.push("the local AOF (appendfsync always)");
  else if (facts.aofEnabled && atLeast(facts.version, 7, 2)) {
    steps.push("WAITAOF");
    parts.push("the local AOF (WAITAOF)");
  }
  const unprotected = steps.length === 0 && !fsyncAlways;
  return {
    steps,
    summary: unprotected
      ? "nothing: no replica online and no AOF to wait for"
      : parts.join(" and "),
    unprotected,
  };
}

const WaitReplySchema = z.number().int();
const WaitAofReplySchema = z.tuple([z.number().int(), z.number().int()]);

/** Whether the reply of one wait step says the write got where it should. */
function stepMet(step: WaitStep, reply: unknown): boolean {
  if (step === "WAIT") return (WaitReplySchema.safeParse(reply).data ?? 0) >= 1;
  return (WaitAofReplySchema.safeParse(reply).data?.[0] ?? 0) >= 1;
}

export interface RedisDurabilityOptions {
  /** How long one wait may take before the write counts as not durable. */
  timeoutMs: number;
  logger?: Logger;
  /** How often the plan is read again (replicas come and go). Default 30 s. */
  refreshMs?: number;
}

/**
 * Durable writes on a connection of their own: `WAIT` blocks the connection it runs on
 * until the replicas answer, so it must not hold up every other command of the bot.
 * A wait covers every write made before it on any connection (the replication stream is
 * one), so the script and its wait go out together on this one.
 */
export class RedisDurability {
  readonly #redis: Redis;
  readonly #options: Required<Omit<RedisDurabilityOptions, "logger">>;
  readonly #log: Logger;
  #plan: DurabilityPlan = { steps: [], summary: "not read yet", unprotected: true };
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: Redis, options: RedisDurabilityOptions) {
    this.#redis = redis;
    this.#options = { refreshMs: 30_000, ...options };
    this.#log = options.logger ?? silentLogger;
  }

  get plan(): DurabilityPlan {
    return this.#plan;
  }

  /** Reads the plan now, then again on every reconnection and every `refreshMs`. */
  async start(): Promise<DurabilityPlan> {
    await this.refresh();
    this.#redis.on("ready", () => void this.refresh().catch(() => undefined));
    this.#timer = setInterval(
      () => void this.refresh().catch(() => undefined),
      this.#options.refreshMs,
    );
    this.#timer.unref();
    return this.#plan;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Reads INFO and sets the plan; logs when it changes. */
  async refresh(): Promise<DurabilityPlan> {
    const [server, replication, persistence] = await Promise.all([
      this.#redis.info("server"),
      this.#redis.info("replication"),
      this.#redis.info("persistence"),
    ]);
    const plan = planDurability(parseServerFacts(`${server}\n${replication}\n${persistence}`));
    if (plan.summary !== this.#plan.summary) {
      const level = plan.unprotected ? "warn" : "info";
      this.#log[level]({ durableWrites: plan.summary }, "redis durable writes wait for this");
    }
    this.#plan = plan;
    return plan;
  }

  /**
   * Runs `script`, then waits as the plan says, in one round trip. `durable` is false when
   * a wait was not met in time; then the plan is read again, and if it changed (the
   * replica went away), the wait is made again under the new plan.
   */
  async runScript(
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<{ reply: unknown; durable: boolean }> {
    const steps = this.#plan.steps;
    if (steps.length === 0)
      return { reply: await runScript(this.#redis, script, keys, args), durable: true };
    let pipeline = this.#redis.pipeline().evalsha(script.sha1, keys.length, ...keys, ...args);
    pipeline = this.#addWaits(pipeline, steps);
    let replies = (await pipeline.exec()) ?? [];
    const [scriptError] = replies[0] ?? [];
    if (isNoScript(scriptError)) {
      // The script did not run (nor write): send its source, then wait again.
      pipeline = this.#redis.pipeline().eval(script.source, keys.length, ...keys, ...args);
      replies = (await this.#addWaits(pipeline, steps).exec()) ?? [];
    }
    const [error, reply] = replies[0] ?? [new Error("no reply from Redis"), undefined];
    if (error) throw error;
    if (this.#met(steps, replies.slice(1))) return { reply, durable: true };
    return { reply, durable: await this.#waitAgainIfPlanChanged(steps) };
  }

  #addWaits<P extends ReturnType<Redis["pipeline"]>>(pipeline: P, steps: readonly WaitStep[]): P {
    const timeout = this.#options.timeoutMs;
    for (const step of steps) {
      if (step === "WAIT") pipeline.call("WAIT", 1, timeout);
      else pipeline.call("WAITAOF", 1, 0, timeout);
    }
    return pipeline;
  }

  #met(steps: readonly WaitStep[], replies: readonly [Error | null, unknown][]): boolean {
    return steps.every((step, index) => {
      const [error, reply] = replies[index] ?? [null, undefined];
      if (error) this.#log.warn({ err: error, step }, "durable write wait failed");
      return !error && stepMet(step, reply);
    });
  }

  async #waitAgainIfPlanChanged(steps: readonly WaitStep[]): Promise<boolean> {
    this.#log.warn({ steps }, "a write was not confirmed durable in time");
    const plan = await this.refresh().catch(() => this.#plan);
    if (plan.steps.join() === steps.join()) return false;
    if (plan.steps.length === 0) return true;
    const replies = (await this.#addWaits(this.#redis.pipeline(), plan.steps).exec()) ?? [];
    return this.#met(plan.steps, replies);
  }
}
