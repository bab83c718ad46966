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
 *
 * A plan that waited for a replica keeps expecting one (mode `auto`). If the primary stops
 * listing it (its machine is gone, or a partition outlasted `repl-timeout`), the writes are
 * not durable as configured: a claim (a move into `submitting`) is refused as "storage
 * unavailable" before it is made, and any other durable write (a payment id that must be
 * recorded whatever happens) is made and reported not durable, until a replica is back.
 * Mode `local` never waits for a replica: the local AOF is all the operator asks for.
 */
import { Cluster } from "ioredis";
import { z } from "zod";
import { type Logger, silentLogger } from "../../logger.js";
import { StoreUnavailableError } from "../errors.js";
import { primaries, type RedisClient } from "./connection.js";
import { isNoScript, type LuaScript, runScript } from "./scripts.js";

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
  /** True when the replica an earlier plan waited for is no longer listed (mode `auto`). */
  replicaLost: boolean;
}

/**
 * `auto`: wait for a replica when one is online, and once one was, keep expecting it;
 * `local`: wait only for the local AOF, whatever replicas there are.
 */
export type DurabilityMode = "auto" | "local";

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

/**
 * A Redis Cluster's facts as one server's: the weakest primary's. Every shard holds some
 * merchants' payouts, so a wait is only as good as the worst shard allows (a shard whose
 * replica is gone makes the plan lose its replica, as a single primary's would).
 */
export function weakestFacts(facts: readonly ServerFacts[]): ServerFacts {
  const [first, ...rest] = facts;
  if (!first) return parseServerFacts("");
  return rest.reduce(
    (weakest, next) => ({
      version: atLeast(next.version, weakest.version[0] ?? 0, weakest.version[1] ?? 0)
        ? weakest.version
        : next.version,
      role: next.role === weakest.role ? weakest.role : "mixed",
      onlineReplicas: Math.min(weakest.onlineReplicas, next.onlineReplicas),
      aofEnabled: weakest.aofEnabled && next.aofEnabled,
      appendfsync: weakest.appendfsync === "always" ? next.appendfsync : weakest.appendfsync,
    }),
    first,
  );
}

function atLeast(version: readonly number[], major: number, minor: number): boolean {
  const [have = 0, haveMinor = 0] = version;
  return have > major || (have === major && haveMinor >= minor);
}

/**
 * How to wait for a write on a server with these facts. `expectReplica`: an earlier plan
 * waited for a replica (mode `auto`), so a server with none online has lost it.
 */
export function planDurability(
  facts: ServerFacts,
  options: { mode?: DurabilityMode; expectReplica?: boolean } = {},
): DurabilityPlan {
  const mode = options.mode ?? "auto";
  if (mode === "auto" && options.expectReplica && facts.onlineReplicas === 0) {
    return {
      steps: ["WAIT"],
      summary: "nothing: the replica it waited for is gone (claims refused until one is back)",
      unprotected: true,
      replicaLost: true,
    };
  }
  const steps: WaitStep[] = [];
  const parts: string[] = [];
  if (mode === "auto" && facts.onlineReplicas > 0) {
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
    replicaLost: false,
  };
}

/** How often a script redirected by a cluster (MOVED, ASK, TRYAGAIN) is sent again. */
const REDIRECTED_TRIES = 8;

/** A cluster's answer that a command ran nowhere: its slot is elsewhere, moving, or unserved. */
export function isRedirection(error: unknown): boolean {
  return error instanceof Error && /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /.test(error.message);
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
  /** REDIS_DURABILITY: `auto` (default) or `local` (see DurabilityMode). */
  mode?: DurabilityMode;
  logger?: Logger;
  /** How often the plan is read again (replicas come and go). Default 30 s. */
  refreshMs?: number;
}

/**
 * Durable writes on a connection of their own: `WAIT` blocks the connection it runs on
 * until the replicas answer, so it must not hold up every other command of the bot.
 * A wait covers every write made before it on any connection (the replication stream is
 * one), so the script and its wait go out together on this one.
 *
 * On a Redis Cluster, WAIT and WAITAOF count the replication of the node they run on, so
 * the wait must reach the primary that made the write: the script and its waits go out in
 * one pipeline, which the cluster client sends to the node of the script's keys (keyless
 * commands ride with the keyed one). A MOVED answer (a slot migrated, a failover) sends
 * the whole pipeline again to the new owner; the script is a compare-and-set, so running
 * it there again is harmless. The plan is read from every primary (`weakestFacts`).
 */
export class RedisDurability {
  readonly #redis: RedisClient;
  readonly #options: Required<Omit<RedisDurabilityOptions, "logger">>;
  readonly #log: Logger;
  #plan: DurabilityPlan = {
    steps: [],
    summary: "not read yet",
    unprotected: true,
    replicaLost: false,
  };
  /** A plan has waited for a replica: from then on, one is expected. */
  #expectReplica = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: RedisClient, options: RedisDurabilityOptions) {
    this.#redis = redis;
    this.#options = { refreshMs: 30_000, mode: "auto", ...options };
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
    const facts = await Promise.all(
      primaries(this.#redis).map(async (node) => {
        const [server, replication, persistence] = await Promise.all([
          node.info("server"),
          node.info("replication"),
          node.info("persistence"),
        ]);
        return parseServerFacts(`${server}\n${replication}\n${persistence}`);
      }),
    );
    const plan = planDurability(weakestFacts(facts), {
      mode: this.#options.mode,
      expectReplica: this.#expectReplica,
    });
    if (plan.summary !== this.#plan.summary) {
      const level = plan.replicaLost ? "error" : plan.unprotected ? "warn" : "info";
      this.#log[level]({ durableWrites: plan.summary }, "redis durable writes wait for this");
    }
    if (plan.steps.includes("WAIT")) this.#expectReplica = true;
    this.#plan = plan;
    return plan;
  }

  /**
   * Before a claim: throws a StoreUnavailableError while the replica the plan waited for is
   * gone (read afresh first, so a replica that came back is seen at once). Free otherwise.
   */
  async ensureClaimsDurable(): Promise<void> {
    if (!this.#plan.replicaLost) return;
    const plan = await this.refresh();
    if (plan.replicaLost) {
      throw new StoreUnavailableError("the Redis replica the durable writes wait for is gone");
    }
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
    // A write made while the replica is gone is made, but is not durable as configured.
    const lost = this.#plan.replicaLost && (await this.refresh()).replicaLost;
    if (lost) return { reply: await runScript(this.#redis, script, keys, args), durable: false };
    const steps = this.#plan.steps;
    if (steps.length === 0)
      return { reply: await runScript(this.#redis, script, keys, args), durable: true };
    let replies = await this.#scriptWithWaits(script, keys, args, steps);
    // On a cluster, a pipeline whose script is redirected (its slot now served by another
    // primary after a failover, or moving) is not followed by the client: the script ran
    // nowhere. Read the slot map again and send script and waits to the new owner.
    for (
      let attempt = 1;
      attempt <= REDIRECTED_TRIES && isRedirection(replies[0]?.[0]);
      attempt++
    ) {
      await this.#reloadSlots();
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      replies = await this.#scriptWithWaits(script, keys, args, steps);
    }
    const [error, reply] = replies[0] ?? [new Error("no reply from Redis"), undefined];
    if (error) throw error;
    if (this.#met(steps, replies.slice(1))) return { reply, durable: true };
    return { reply, durable: await this.#waitAgainIfPlanChanged(steps) };
  }

  /** The script (its source on NOSCRIPT) and the waits, in one pipeline to one node. */
  async #scriptWithWaits(
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    steps: readonly WaitStep[],
  ): Promise<[Error | null, unknown][]> {
    let pipeline = this.#redis.pipeline().evalsha(script.sha1, keys.length, ...keys, ...args);
    let replies = (await this.#addWaits(pipeline, steps).exec()) ?? [];
    if (isNoScript(replies[0]?.[0])) {
      // The script did not run (nor write): send its source, then wait again.
      pipeline = this.#redis.pipeline().eval(script.source, keys.length, ...keys, ...args);
      replies = (await this.#addWaits(pipeline, steps).exec()) ?? [];
    }
    return replies;
  }

  /** On a cluster, reads the slot map again (resolves even when that fails: the next try tells). */
  async #reloadSlots(): Promise<void> {
    const cluster = this.#redis;
    if (!(cluster instanceof Cluster)) return;
    await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
  }

  #addWaits<P extends ReturnType<RedisClient["pipeline"]>>(
    pipeline: P,
    steps: readonly WaitStep[],
  ): P {
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
    if (plan.replicaLost || plan.steps.join() === steps.join()) return false;
    if (plan.steps.length === 0) return true;
    const replies = (await this.#addWaits(this.#redis.pipeline(), plan.steps).exec()) ?? [];
    return this.#met(plan.steps, replies);
  }
}
