/**
 * A Redis Sentinel deployment on loopback for failover tests: a primary, two replicas (as
 * the README asks of a Sentinel deployment: after a failover the new primary still has
 * one), and three sentinels (`redis-server <config> --sentinel`, each with a config file of its own
 * in a temporary directory, since sentinels rewrite it).
 *
 * The replicas' link to the primary runs through a TcpRelay that can hold every byte a
 * while, as a network between two machines would: replication lag becomes real, and a
 * crash of the primary (`crashPrimary`) loses what it had not yet shipped, as a crashed
 * machine would. Sentinels still see the replica at its real address: the primary lists
 * it by the port it listens on (REPLCONF listening-port), not by the relay's.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { z } from "zod";
import { TcpRelay } from "../../src/dev/tcp-relay.js";
import type { SentinelTarget } from "../../src/store/redis/target.js";
import { freePort } from "./net.js";
import { PrivateRedis, waitUntil } from "./processes.js";

const MASTER_NAME = "mymaster";

export interface SentinelClusterOptions {
  /** Added each way on the replica's link to the primary. Default 0. */
  linkDelayMs?: number;
  /** The sentinels' `down-after-milliseconds`: how long a silent primary is still up. */
  downAfterMs?: number;
}

/** SENTINEL REPLICAS / SENTINELS answer one flat [name, value, …] array per instance. */
const InstancesSchema = z.array(z.array(z.string()));

function fieldsOf(flat: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] ?? "", flat[i + 1] ?? "");
  return fields;
}

/** A short-lived client for one question (the servers here may be down at any time). */
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

export class SentinelCluster {
  readonly name = MASTER_NAME;
  readonly primary: PrivateRedis;
  /** The replica the sentinels promote (the other has a lower `replica-priority`). */
  readonly replica: PrivateRedis;
  /** The second replica, which replicates from the new primary after a failover. */
  readonly spare: PrivateRedis;
  /** The replicas' link to the primary. */
  readonly link: TcpRelay;
  readonly sentinels: readonly PrivateRedis[];
  readonly #dir: string;

  private constructor(parts: {
    primary: PrivateRedis;
    replica: PrivateRedis;
    spare: PrivateRedis;
    link: TcpRelay;
    sentinels: PrivateRedis[];
    dir: string;
  }) {
    this.primary = parts.primary;
    this.replica = parts.replica;
    this.spare = parts.spare;
    this.link = parts.link;
    this.sentinels = parts.sentinels;
    this.#dir = parts.dir;
  }

  /**
   * Starts the primary, the replicas (in sync before this resolves) and three sentinels
   * with a quorum of two; resolves once every sentinel knows the replica and the others.
   */
  static async start(options: SentinelClusterOptions = {}): Promise<SentinelCluster> {
    const dir = mkdtempSync(join(tmpdir(), "payout-bot-sentinel-"));
    // A replica's first sync starts at once, not after the default 5 s wait for others.
    const primary = await PrivateRedis.start({ args: ["--repl-diskless-sync-delay", "0"] });
    const delayMs = options.linkDelayMs ?? 0;
    const link = await TcpRelay.start({
      targetPort: primary.port,
      upstreamDelayMs: delayMs,
      downstreamDelayMs: delayMs,
    });
    const replica = await PrivateRedis.start({
      args: ["--replicaof", "127.0.0.1", String(link.port)],
    });
    const spare = await PrivateRedis.start({
      args: ["--replicaof", "127.0.0.1", String(link.port), "--replica-priority", "200"],
    });
    const sentinels: PrivateRedis[] = [];
    const cluster = new SentinelCluster({ primary, replica, spare, link, sentinels, dir });
    try {
      for (const server of [replica, spare]) {
        await waitUntil(
          async () => (await cluster.#info(server.port)).includes("master_link_status:up"),
          "the replicas to be in sync",
        );
      }
      // Each sentinel is told the others and the replica up front, rather than finding them
      // over the next seconds (hello messages every 2 s).
      const peers = await Promise.all(
        [1, 2, 3].map(async () => ({
          port: await freePort(),
          id: randomBytes(20).toString("hex"),
        })),
      );
      for (const [n, self] of peers.entries()) {
        const configFile = join(dir, `sentinel-${n + 1}.conf`);
        const others = peers.filter((peer) => peer !== self);
        writeFileSync(
          configFile,
          [
            `sentinel myid ${self.id}`,
            `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} 2`,
            `sentinel known-replica ${MASTER_NAME} 127.0.0.1 ${replica.port}`,
            `sentinel known-replica ${MASTER_NAME} 127.0.0.1 ${spare.port}`,
            ...others.map(
              (peer) => `sentinel known-sentinel ${MASTER_NAME} 127.0.0.1 ${peer.port} ${peer.id}`,
            ),
            `sentinel down-after-milliseconds ${MASTER_NAME} ${options.downAfterMs ?? 1000}`,
            // Long, because a sentinel "fixes" a replica that replicates from another address
            // than the primary's (here: the relay) once this long has passed; a first
            // failover that goes well takes seconds whatever this is.
            `sentinel failover-timeout ${MASTER_NAME} 60000`,
            `sentinel parallel-syncs ${MASTER_NAME} 1`,
            "",
          ].join("\n"),
        );
        sentinels.push(
          await PrivateRedis.start({ configFile, port: self.port, args: ["--sentinel"] }),
        );
      }
      await waitUntil(() => cluster.#everySentinelSeesAll(), "the sentinels to see it all", 20_000);
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** The bot's environment for this deployment. */
  env(): Record<string, string> {
    const sentinels = this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`);
    return { REDIS_SENTINELS: sentinels.join(","), REDIS_SENTINEL_NAME: this.name };
  }

  /** The same place, for the test's own connections. */
  target(): SentinelTarget {
    const sentinels = this.sentinels.map((sentinel) => ({
      host: "127.0.0.1",
      port: sentinel.port,
    }));
    return { kind: "sentinel", sentinels, name: this.name, tls: false };
  }

  /** The port the replica replicates from right now (the relay's, unless a sentinel moved it). */
  async replicaMasterPort(): Promise<number> {
    const port = /master_port:(\d+)/.exec(await this.#info(this.replica.port))?.[1];
    return Number(port);
  }

  /**
   * The primary's machine dies: SIGKILL, and its link to the replica goes with it, so
   * bytes still on their way are lost, not delivered late.
   */
  async crashPrimary(): Promise<void> {
    const stopped = this.primary.stop("SIGKILL");
    this.link.cut();
    await Promise.all([stopped, this.link.close()]);
  }

  /** Resolves once every sentinel names the replica as the primary and it acts as one. */
  async waitForFailover(timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      async () => {
        const named = await Promise.all(
          this.sentinels.map((sentinel) =>
            ask(sentinel.port, (redis) =>
              redis.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.name),
            ).catch(() => null),
          ),
        );
        const replicaNamed = named.every(
          (answer) => Array.isArray(answer) && Number(answer[1]) === this.replica.port,
        );
        return replicaNamed && (await this.#info(this.replica.port)).includes("role:master");
      },
      "the sentinels to promote the replica",
      timeoutMs,
    );
  }

  /** Resolves once the promoted replica has the spare as an online replica of its own. */
  async waitForNewReplica(timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      async () => /slave\d+:[^\r\n]*state=online/.test(await this.#info(this.replica.port)),
      "the spare to replicate from the new primary",
      timeoutMs,
    );
  }

  /** Stops every server and the relay, and removes the sentinels' config files. */
  async close(): Promise<void> {
    await Promise.all([
      ...this.sentinels.map((sentinel) => sentinel.close()),
      this.replica.close(),
      this.spare.close(),
      this.primary.close(),
      this.link.close(),
    ]);
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #info(port: number): Promise<string> {
    return ask(port, (redis) => redis.info("replication")).catch(() => "");
  }

  /** Every sentinel knows both replicas of the primary and the two other sentinels. */
  async #everySentinelSeesAll(): Promise<boolean> {
    const views = await Promise.all(
      this.sentinels.map((sentinel) =>
        ask(sentinel.port, async (redis) => ({
          replicas: InstancesSchema.parse(await redis.call("SENTINEL", "REPLICAS", this.name)),
          sentinels: InstancesSchema.parse(await redis.call("SENTINEL", "SENTINELS", this.name)),
        })).catch(() => undefined),
      ),
    );
    return views.every((view) => {
      if (!view || view.sentinels.length !== this.sentinels.length - 1) return false;
      const replicas = view.replicas.map(fieldsOf);
      const ports = replicas.map((replica) => replica.get("port")).sort();
      return (
        replicas.length === 2 &&
        ports.join() === [this.replica.port, this.spare.port].map(String).sort().join() &&
        replicas.every((replica) => replica.get("flags") === "slave")
      );
    });
  }
}
