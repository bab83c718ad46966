/**
 * A real Redis Cluster on loopback for the tests that run on one: six `redis-server
 * --cluster-enabled yes` processes on spare ports (each in a temporary directory of its
 * own, no persistence), joined by `redis-cli --cluster create … --cluster-replicas 1`:
 * three primaries, each with one replica. `cluster-node-timeout` is 1000 ms, so a primary
 * killed is replaced by its replica within a few seconds. Start it once per test file
 * (beforeAll) and `close` it after (afterAll): it stops every process and removes the
 * directories.
 */
import { spawn } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { z } from "zod";
import {
  createRedisConnection,
  type RedisClient,
  waitForReady,
} from "../../src/store/redis/connection.js";
import type { ClusterTarget } from "../../src/store/redis/target.js";
import { freePort } from "./net.js";
import { PrivateRedis, waitUntil } from "./processes.js";

const NODE_TIMEOUT_MS = 1000;

/** A short-lived client for one question (a node may be down at any time). */
async function ask<T>(port: number, question: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    host: "127.0.0.1",
    port,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return await question(redis);
  } finally {
    redis.disconnect();
  }
}

/** Runs `redis-cli` with `args`; rejects with its output when it fails. */
async function redisCli(args: readonly string[]): Promise<string> {
  const child = spawn("redis-cli", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`redis-cli ${args.join(" ")} failed (${code}):\n${output}`);
  return output;
}

/** One line of CLUSTER NODES: id, address, flags, its primary's id, slots. */
export interface ClusterNodeLine {
  id: string;
  port: number;
  primary: boolean;
  failed: boolean;
  primaryId: string;
}

const NodesTextSchema = z.string();

function parseNodes(text: string): ClusterNodeLine[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [id = "", address = "", flags = "", primaryId = "-"] = line.split(" ");
      return {
        id,
        port: Number(address.split("@")[0]?.split(":").at(-1)),
        primary: flags.split(",").includes("master"),
        failed: flags.split(",").some((flag) => flag === "fail" || flag === "fail?"),
        primaryId,
      };
    });
}

export class RedisCluster {
  readonly nodes: readonly PrivateRedis[];

  private constructor(nodes: PrivateRedis[]) {
    this.nodes = nodes;
  }

  /** Six nodes, three primaries with a replica each, `cluster_state:ok` on every one. */
  static async start(): Promise<RedisCluster> {
    const ports: number[] = [];
    while (ports.length < 6) {
      const port = await freePort();
      // The cluster bus listens at port + 10000: both must be free and under 65536.
      if (port < 55_000 && !ports.includes(port)) ports.push(port);
    }
    const started = await Promise.allSettled(
      ports.map((port) =>
        PrivateRedis.start({
          port,
          tracked: false,
          args: [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            String(NODE_TIMEOUT_MS),
            // A replica that never finished its first sync does not stand for election: the
            // default 5 s delay before a diskless sync would leave a fresh cluster without
            // failover for its first seconds.
            "--repl-diskless-sync-delay",
            "0",
          ],
        }),
      ),
    );
    const nodes = started.flatMap((result) =>
      result.status === "fulfilled" ? [result.value] : [],
    );
    const cluster = new RedisCluster(nodes);
    try {
      if (nodes.length < ports.length) throw new Error("a cluster node did not start");
      await redisCli([
        "--cluster",
        "create",
        ...ports.map((port) => `127.0.0.1:${port}`),
        "--cluster-replicas",
        "1",
        "--cluster-yes",
      ]);
      await cluster.waitForOk();
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** Where the bot finds it (REDIS_CLUSTER_NODES): every node, as a deployment would list. */
  target(): ClusterTarget {
    return {
      kind: "cluster",
      nodes: this.nodes.map((node) => ({ host: "127.0.0.1", port: node.port })),
      tls: false,
    };
  }

  /** The bot's environment for this cluster (REDIS_URL must then be unset). */
  env(): Record<string, string> {
    return { REDIS_CLUSTER_NODES: this.nodes.map((node) => `127.0.0.1:${node.port}`).join(",") };
  }

  /**
   * Resolves once every running node says `cluster_state:ok` and knows three primaries up,
   * and every replica's link to its primary is up (a replica that never synced would not
   * take over from a primary that dies).
   */
  async waitForOk(timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      async () => {
        for (const node of this.nodes) {
          if (!node.running) continue;
          const ok = await ask(node.port, async (redis) => {
            const info = await redis.cluster("INFO");
            if (!/cluster_state:ok/.test(String(info))) return false;
            const lines = parseNodes(NodesTextSchema.parse(await redis.cluster("NODES")));
            if (lines.filter((line) => line.primary && !line.failed).length !== 3) return false;
            const replication = await redis.info("replication");
            return /role:master/.test(replication) || /master_link_status:up/.test(replication);
          }).catch(() => false);
          if (!ok) return false;
        }
        return true;
      },
      "cluster_state:ok on every node",
      timeoutMs,
    );
  }

  /** The cluster as one running node sees it. */
  async nodeLines(): Promise<ClusterNodeLine[]> {
    for (const node of this.nodes) {
      if (!node.running) continue;
      const text = await ask(node.port, (redis) => redis.cluster("NODES")).catch(() => undefined);
      if (typeof text === "string") return parseNodes(text);
    }
    throw new Error("no cluster node answers");
  }

  /** The node serving `key`'s slot now. */
  async primaryOf(key: string): Promise<PrivateRedis> {
    const running = this.nodes.find((node) => node.running);
    if (!running) throw new Error("no cluster node runs");
    const slot = z
      .number()
      .parse(await ask(running.port, (redis) => redis.cluster("KEYSLOT", key)));
    const slots = z
      .array(
        z
          .tuple([z.number(), z.number(), z.tuple([z.string(), z.number()]).rest(z.unknown())])
          .rest(z.unknown()),
      )
      .parse(await ask(running.port, (redis) => redis.cluster("SLOTS")));
    const owner = slots.find(([from, to]) => slot >= from && slot <= to);
    const node = this.nodes.find((candidate) => candidate.port === owner?.[2][1]);
    if (!node) throw new Error(`no node serves slot ${slot}`);
    return node;
  }

  /** Moves `key`'s slot to another primary (CLUSTER SETSLOT and MIGRATE, by redis-cli). */
  async reshardSlotOf(key: string): Promise<void> {
    const from = await this.primaryOf(key);
    const lines = await this.nodeLines();
    const source = lines.find((line) => line.port === from.port);
    const target = lines.find((line) => line.primary && !line.failed && line.port !== from.port);
    if (!source || !target) throw new Error("no primary to move the slot to");
    const slot = z.number().parse(await ask(from.port, (redis) => redis.cluster("KEYSLOT", key)));
    await ask(target.port, (redis) => redis.cluster("SETSLOT", slot, "IMPORTING", source.id));
    await ask(from.port, (redis) => redis.cluster("SETSLOT", slot, "MIGRATING", target.id));
    for (;;) {
      const keys = z
        .array(z.string())
        .parse(await ask(from.port, (redis) => redis.cluster("GETKEYSINSLOT", slot, 100)));
      if (keys.length === 0) break;
      await ask(from.port, (redis) =>
        redis.call("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", ...keys),
      );
    }
    for (const line of lines.filter((candidate) => candidate.primary && !candidate.failed)) {
      await ask(line.port, (redis) => redis.cluster("SETSLOT", slot, "NODE", target.id));
    }
  }

  /** Kills the primary serving `key` (SIGKILL: nothing more reaches its replica). */
  async crashPrimaryOf(key: string): Promise<PrivateRedis> {
    const primary = await this.primaryOf(key);
    await primary.stop("SIGKILL");
    return primary;
  }

  /** Stops every node and removes their directories. */
  async close(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.close()));
  }
}

/** A test file's cluster and its own connection to it, there from `beforeAll` on. */
export interface ClusterOfFile {
  readonly cluster: RedisCluster;
  readonly redis: RedisClient;
}

/**
 * Starts a cluster and connects to it before the file's tests (beforeAll), and closes both
 * after them (afterAll). Read `cluster` and `redis` inside the tests, not at import.
 */
export function clusterForFile(): ClusterOfFile {
  let started: ClusterOfFile | undefined;
  beforeAll(async () => {
    const cluster = await RedisCluster.start();
    const redis = createRedisConnection(cluster.target());
    started = { cluster, redis };
    await waitForReady(redis, 10_000);
  }, 60_000);
  afterAll(async () => {
    await started?.redis.quit();
    await started?.cluster.close();
  });
  const current = (): ClusterOfFile => {
    if (!started) throw new Error("the cluster starts in beforeAll: read it inside a test");
    return started;
  };
  return {
    get cluster() {
      return current().cluster;
    },
    get redis() {
      return current().redis;
    },
  };
}
