/**
 * A Redis Cluster of primaries only, from `redis-server --cluster-enabled yes` processes on
 * loopback, for the scale benchmark: one primary owning all 16384 slots (CLUSTER
 * ADDSLOTSRANGE), or several joined by `redis-cli --cluster create` (slots split evenly).
 * No replicas and no persistence: the benchmark measures how the work spreads over shards,
 * not failover (test/support/cluster.ts covers that). Each node's CPU time is read from
 * INFO cpu, so a run can say whether Redis or the bot was the limit. With `cpuShare`, each
 * node runs in a cgroup of its own capped at that share of one core (cpu-cap.ts), as if each
 * shard had a small machine to itself.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freeLoopbackPort } from "../src/dev/free-port.js";
import { CpuCap, type Throttling } from "./cpu-cap.js";
import { sleep } from "./setup.js";

const LAST_SLOT = 16_383;
const READY_TIMEOUT_MS = 30_000;
const live = new Set<ChildProcess>();

// A crash of the harness must not leave redis-server processes behind.
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** A short-lived client for one question to the node at `port`. */
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

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const stopAt = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < stopAt) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} not within ${READY_TIMEOUT_MS} ms`);
}

/** A port whose cluster bus (port + 10000) is also a valid port. */
async function clusterPort(taken: readonly number[]): Promise<number> {
  for (;;) {
    const port = await freeLoopbackPort();
    if (port < 55_000 && !taken.includes(port)) return port;
  }
}

async function redisCli(args: readonly string[]): Promise<void> {
  const child = spawn("redis-cli", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`redis-cli ${args.join(" ")} failed (${code}):\n${output}`);
}

/** used_cpu_sys + used_cpu_user of INFO cpu, in seconds. */
function cpuSecondsOf(info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1]);
  return field("used_cpu_sys") + field("used_cpu_user");
}

/** A node's INFO stats counters. */
export interface NodeCounters {
  commands: number;
  reads: number;
}

export interface BenchClusterOptions {
  /** Each node's CPU budget, a share of one core (e.g. 0.03); default: none. */
  cpuShare?: number;
}

export class BenchCluster {
  readonly ports: readonly number[];
  /** Each node's CPU cap, in `ports`' order; empty without `cpuShare`. */
  readonly caps: readonly CpuCap[];
  readonly #children: readonly ChildProcess[];
  readonly #dir: string;

  private constructor(ports: number[], children: ChildProcess[], dir: string, caps: CpuCap[]) {
    this.ports = ports;
    this.#children = children;
    this.#dir = dir;
    this.caps = caps;
  }

  /** `primaries` nodes sharing the 16384 slots; resolves once each says cluster_state:ok. */
  static async start(primaries: number, options: BenchClusterOptions = {}): Promise<BenchCluster> {
    const dir = mkdtempSync(join(tmpdir(), "bench-cluster-"));
    const ports: number[] = [];
    for (let n = 0; n < primaries; n++) ports.push(await clusterPort(ports));
    const caps: CpuCap[] = [];
    const children = ports.map((port) => {
      const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", ""];
      args.push("--appendonly", "no", "--cluster-enabled", "yes");
      // A lone node that never met another does not know its own address (CLUSTER SLOTS
      // would name it ""): say it.
      args.push("--cluster-announce-ip", "127.0.0.1");
      args.push("--cluster-config-file", `nodes-${port}.conf`, "--dir", dir);
      const child = spawn("redis-server", args, { stdio: "ignore" });
      live.add(child);
      child.once("exit", () => live.delete(child));
      return child;
    });
    const cluster = new BenchCluster(ports, children, dir, caps);
    try {
      if (options.cpuShare !== undefined) {
        for (const child of children) {
          if (child.pid === undefined) throw new Error("redis-server did not start");
          const cap = CpuCap.create(options.cpuShare);
          caps.push(cap);
          cap.add(child.pid);
        }
      }
      for (const port of ports) {
        await until(async () => (await ask(port, (r) => r.ping())) === "PONG", `node ${port}`);
      }
      const [first] = ports;
      if (first === undefined) throw new Error("a cluster needs at least one primary");
      if (ports.length === 1) {
        await ask(first, (r) => r.call("CLUSTER", "ADDSLOTSRANGE", "0", String(LAST_SLOT)));
      } else {
        const addresses = ports.map((port) => `127.0.0.1:${port}`);
        await redisCli(["--cluster", "create", ...addresses, "--cluster-yes"]);
      }
      for (const port of ports) {
        await until(
          async () => /cluster_state:ok/.test(String(await ask(port, (r) => r.cluster("INFO")))),
          `cluster_state:ok on ${port}`,
        );
      }
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** REDIS_CLUSTER_NODES for the bot. */
  get nodesEnv(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(",");
  }

  /** CPU time each node has used so far, in seconds (INFO cpu), in `ports`' order. */
  cpuSeconds(): Promise<number[]> {
    return Promise.all(
      this.ports.map(async (port) => cpuSecondsOf(await ask(port, (r) => r.info("cpu")))),
    );
  }

  /** Each node's cgroup throttling counters so far, in `ports`' order; [] when uncapped. */
  throttling(): Throttling[] {
    return this.caps.map((cap) => cap.throttling());
  }

  /**
   * Commands each node has processed so far, and the reads from client sockets it took to
   * get them (INFO stats): commands per read is how well the clients' pipelining batched.
   */
  counters(): Promise<NodeCounters[]> {
    return Promise.all(
      this.ports.map(async (port) => {
        const info = await ask(port, (r) => r.info("stats"));
        const field = (name: string) =>
          Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1] ?? 0);
        return {
          commands: field("total_commands_processed"),
          reads: field("total_reads_processed"),
        };
      }),
    );
  }

  /** Empties every node (the next run starts from nothing). */
  async flush(): Promise<void> {
    await Promise.all(this.ports.map((port) => ask(port, (r) => r.flushall())));
  }

  /** Stops every node and removes their directory and their CPU caps. */
  async close(): Promise<void> {
    await Promise.all(
      this.#children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        const force = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(force);
      }),
    );
    for (const cap of this.caps) cap.remove();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
