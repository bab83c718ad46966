/**
 * Redis as the bot will find it: reachable, a primary (found through Sentinel when so
 * configured), writes that can be made durable as REDIS_DURABILITY asks, and
 * `maxmemory-policy noeviction`: under any other policy a full Redis deletes keys, a
 * payout's claim or its outbox entry among them. On a Redis Cluster (REDIS_CLUSTER_NODES):
 * `cluster_state:ok`, and the durability and the memory policy of every primary (each
 * shard keeps its own merchants' payouts). All from INFO and CLUSTER INFO (managed Redis
 * often refuses CONFIG), on a connection of its own.
 */
import { Cluster } from "ioredis";
import type { Config } from "../config/index.js";
import {
  closeConnection,
  createRedisConnection,
  type RedisClient,
  waitForReady,
} from "../store/redis/connection.js";
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
          : target.kind === "cluster"
            ? "Check REDIS_CLUSTER_NODES, REDIS_PASSWORD and REDIS_TLS."
            : "Check REDIS_SENTINELS, REDIS_SENTINEL_NAME and the passwords.";
      const skipped = "not checked: Redis is not reachable";
      return [
        fail("redis", `${where} is not reachable (${reasonOf(lastError ?? error)})`, fix),
        warn("redis topology", skipped),
        warn("redis durability", skipped),
        warn("redis memory policy", skipped),
      ];
    }
    if (redis instanceof Cluster) return await clusterChecks(config, where, redis);
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

/**
 * A cluster: every node agrees the cluster is ok, and each primary's durability and memory
 * policy pass as a single server's would (the worst one is reported, naming the node).
 */
async function clusterChecks(config: Config, where: string, cluster: Cluster) {
  const primaries = cluster.nodes("master");
  const facts = await Promise.all(
    primaries.map(async (node) => {
      const address = `${node.options.host}:${node.options.port}`;
      const [info, clusterInfo] = await withinDeadline(
        `Redis ${address} (INFO)`,
        CONNECT_TIMEOUT_MS,
        Promise.all([node.info("everything"), node.cluster("INFO")]),
      );
      return { address, info, fields: infoFields(`${info}\n${clusterInfo}`) };
    }),
  );
  const version = facts[0]?.fields.get("redis_version") ?? "(version unknown)";
  const notOk = facts.filter(({ fields }) => fields.get("cluster_state") !== "ok");
  const topology = notOk.length
    ? fail(
        "redis topology",
        `cluster_state is not ok on ${notOk.map(({ address }) => address).join(", ")}`,
        "Check `redis-cli --cluster check <node>`: every slot must be served by a primary that answers.",
      )
    : ok(
        "redis topology",
        `Redis Cluster, ${primaries.length} primaries (${facts
          .map(
            ({ address, fields }) =>
              `${address} with ${fields.get("connected_slaves") ?? "0"} replicas`,
          )
          .join(", ")})`,
      );
  /** The first failing (else warning) check of the primaries, named by its node. */
  const worst = (checks: Array<{ address: string; check: CheckResult }>): CheckResult => {
    const found =
      checks.find(({ check }) => check.status === "fail") ??
      checks.find(({ check }) => check.status === "warn") ??
      checks[0];
    if (!found) return warn("redis", "no primary found");
    if (found.check.status === "ok")
      return { ...found.check, fact: `${found.check.fact} (every primary)` };
    return { ...found.check, fact: `${found.address}: ${found.check.fact}` };
  };
  return [
    ok("redis", `${where} answers, Redis ${version}`),
    topology,
    worst(facts.map(({ address, info }) => ({ address, check: durabilityCheck(config, info) }))),
    worst(facts.map(({ address, fields }) => ({ address, check: memoryPolicyCheck(fields) }))),
  ];
}

/** The host:port the connection reached (the primary a sentinel named). */
function connectedAddress(redis: RedisClient): string {
  if (redis instanceof Cluster) return "?";
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
      "Give the cluster's nodes in REDIS_CLUSTER_NODES (and unset REDIS_URL): one node alone answers MOVED for most keys.",
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
