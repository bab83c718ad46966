/**
 * Redis as the bot will find it: reachable, a primary (found through Sentinel when so
 * configured; Cluster is not something this build speaks), writes that can be made durable
 * as REDIS_DURABILITY asks, and `maxmemory-policy noeviction`: under any other policy a
 * full Redis deletes keys, a payout's claim or its outbox entry among them.
 * All from INFO (managed Redis often refuses CONFIG), on a connection of its own.
 */
import type { Redis } from "ioredis";
import type { Config } from "../config/index.js";
import { closeConnection, createRedisConnection, waitForReady } from "../store/redis/connection.js";
import { parseServerFacts, planDurability } from "../store/redis/durability.js";
import { describeTarget } from "../store/redis/target.js";
import { type CheckResult, fail, ok, reasonOf, warn, withinDeadline } from "./report.js";

const CONNECT_TIMEOUT_MS = 5000;

/** `INFO` text as field → value. */
export function infoFields(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#"))
      fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

/** The Redis lines: reachable, topology, durability, memory policy. */
export async function redisChecks(config: Config): Promise<CheckResult[]> {
  const { target } = config.redis;
  const where = describeTarget(target);
  const redis = createRedisConnection(target, {
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    commandTimeoutMs: CONNECT_TIMEOUT_MS,
  });
  // "not ready after 5000 ms" says less than the refusal behind it.
  let lastError: Error | undefined;
  redis.on("error", (error: Error) => {
    lastError = error;
  });
  try {
    let info: string;
    try {
      await waitForReady(redis, CONNECT_TIMEOUT_MS);
      info = await withinDeadline("Redis (INFO)", CONNECT_TIMEOUT_MS, redis.info("everything"));
    } catch (error) {
      const fix =
        target.kind === "url"
          ? "Start Redis, or fix REDIS_URL (and REDIS_PASSWORD)."
          : "Check REDIS_SENTINELS, REDIS_SENTINEL_NAME and the passwords.";
      const skipped = "not checked: Redis is not reachable";
      return [
        fail("redis", `${where} is not reachable (${reasonOf(lastError ?? error)})`, fix),
        warn("redis topology", skipped),
        warn("redis durability", skipped),
        warn("redis memory policy", skipped),
      ];
    }
    const fields = infoFields(info);
    return [
      ok("redis", `${where} answers, Redis ${fields.get("redis_version") ?? "(version unknown)"}`),
      topologyCheck(config, fields, connectedAddress(redis)),
      durabilityCheck(config, info),
      memoryPolicyCheck(fields),
    ];
  } finally {
    await closeConnection(redis);
  }
}

/** The host:port the connection reached (the primary a sentinel named). */
function connectedAddress(redis: Redis): string {
  const stream = redis.stream;
  return stream?.remoteAddress ? `${stream.remoteAddress}:${stream.remotePort}` : "?";
}

function topologyCheck(config: Config, fields: Map<string, string>, address: string): CheckResult {
  const name = "redis topology";
  const role = fields.get("role") ?? "unknown";
  const replicas = Number(fields.get("connected_slaves") ?? "0");
  const replicasText = `${replicas} replica${replicas === 1 ? "" : "s"}`;
  if (fields.get("cluster_enabled") === "1") {
    return fail(
      name,
      "the server is a Redis Cluster node",
      "Point REDIS_URL at a standalone primary, or REDIS_SENTINELS at its sentinels: this build does not speak Cluster.",
    );
  }
  if (role !== "master") {
    return fail(
      name,
      `the server is a ${role}, which refuses writes`,
      "Point REDIS_URL at the primary, or use REDIS_SENTINELS so a failover is followed.",
    );
  }
  if (config.redis.target.kind === "sentinel") {
    return ok(
      name,
      `Sentinel "${config.redis.target.name}" names the primary ${address}, ${replicasText}`,
    );
  }
  return ok(name, `standalone primary, ${replicasText}`);
}

/**
 * Persistence and the plan the bot will wait by (store/redis/durability.ts). A plan that
 * cannot make a money write durable fails in production and warns elsewhere.
 */
function durabilityCheck(config: Config, info: string): CheckResult {
  const name = "redis durability";
  const facts = parseServerFacts(info);
  const fsync = facts.appendfsync ? ` (appendfsync ${facts.appendfsync})` : "";
  const aof = facts.aofEnabled ? `AOF on${fsync}` : "AOF off";
  const production = config.payment.env === "production";
  const fix =
    "Turn the AOF on (appendonly yes, with appendfsync everysec or always; Redis 7.2+ for WAITAOF) or add a replica, then keep REDIS_DURABILITY=auto.";
  if (config.redis.durability === "off") {
    const fact = `${aof}; REDIS_DURABILITY=off: money writes are not waited for`;
    return production
      ? fail(name, fact, "Unset REDIS_DURABILITY (auto) in production.")
      : warn(name, fact);
  }
  const plan = planDurability(facts, { mode: config.redis.durability });
  const fact = `${aof}; money writes wait for ${plan.summary}`;
  if (!plan.unprotected) return ok(name, fact);
  return production ? fail(name, fact, fix) : warn(name, fact, fix);
}

function memoryPolicyCheck(fields: Map<string, string>): CheckResult {
  const name = "redis memory policy";
  const policy = fields.get("maxmemory_policy") ?? "unknown";
  const maxmemory = Number(fields.get("maxmemory") ?? "0");
  const limit = maxmemory > 0 ? `maxmemory ${Math.round(maxmemory / 1048576)} MB` : "no maxmemory";
  if (policy === "noeviction") return ok(name, `noeviction, ${limit}`);
  return fail(
    name,
    `${policy}: when full, Redis deletes keys, payouts' among them (${limit})`,
    "Set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and in redis.conf or your provider's settings).",
  );
}
