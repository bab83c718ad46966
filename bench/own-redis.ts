/**
 * A redis-server of a benchmark's own: on a free port of loopback, and on request on a Unix
 * socket too (the same server, so TCP and the socket are compared on one Redis) and with a
 * replica of its own (so REDIS_DURABILITY=auto has a replica to wait for, `WAIT 1`). INFO
 * on it counts only the benchmark's bots, not the other tests and benchmarks on the shared
 * Redis. Nothing is saved to disk; everything is gone when it stops.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { freePort } from "./bots.js";
import { connectRedis, sleep } from "./setup.js";

export interface OwnRedisOptions {
  /** Listen on a Unix socket as well (in a fresh folder under the system's temp dir). */
  unixSocket?: boolean;
  /** Start a replica of it and wait until the primary lists it online. */
  replica?: boolean;
}

export interface OwnRedis {
  /** redis://127.0.0.1:<port> */
  tcpUrl: string;
  /** unix:///…/redis.sock, the same server; null without `unixSocket`. */
  unixUrl: string | null;
  /** A client on the primary over TCP, for INFO. */
  admin: Redis;
  stop(): Promise<void>;
}

/** What INFO says the server has done so far: commands, bytes in and out, CPU. */
export interface ServerCounters {
  commands: number;
  bytesIn: number;
  bytesOut: number;
  cpuMs: number;
  /** Calls per command name (INFO commandstats), those Lua scripts make included. */
  calls: Map<string, number>;
}

const NO_DISK = ["--save", "", "--appendonly", "no"];

/** A server whose files (a replica's copy of the primary's data) go to `folder`. */
async function spawnServer(args: readonly string[], folder: string): Promise<ChildProcess> {
  const child = spawn("redis-server", [...args, ...NO_DISK, "--dir", folder], {
    stdio: "ignore",
  });
  const spawned = await Promise.race([
    once(child, "spawn").then(() => true),
    once(child, "error").then(() => false),
  ]);
  if (!spawned) {
    throw new Error(
      "redis-server is not on the PATH: this benchmark starts a Redis of its own (apt-get install redis-server)",
    );
  }
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

async function connectWhenUp(url: string): Promise<Redis> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await connectRedis(url);
    } catch (error) {
      if (tries >= 30) throw error;
      await sleep(100);
    }
  }
}

function infoField(info: string, name: string): number {
  const match = new RegExp(`^${name}:([\\d.]+)`, "m").exec(info);
  return match ? Number(match[1]) : Number.NaN;
}

/** The primary's counters so far (whole server: only this benchmark's bots use it). */
export async function serverCounters(admin: Redis): Promise<ServerCounters> {
  const info = `${await admin.info("stats")}\n${await admin.info("cpu")}`;
  const calls = new Map<string, number>();
  for (const match of (await admin.info("commandstats")).matchAll(
    /^cmdstat_([^:]+):calls=(\d+)/gm,
  )) {
    calls.set(match[1] ?? "", Number(match[2]));
  }
  return {
    calls,
    commands: infoField(info, "total_commands_processed"),
    bytesIn: infoField(info, "total_net_input_bytes"),
    bytesOut: infoField(info, "total_net_output_bytes"),
    cpuMs: (infoField(info, "used_cpu_user") + infoField(info, "used_cpu_sys")) * 1000,
  };
}

async function waitForReplica(admin: Redis): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    if (/^slave0:.*state=online/m.test(await admin.info("replication"))) return;
    await sleep(100);
  }
  throw new Error("the benchmark's replica did not come online in 10 s");
}

/** Starts the server (and its replica); resolves once it answers. */
export async function startOwnRedis(options: OwnRedisOptions = {}): Promise<OwnRedis> {
  const folder = mkdtempSync(join(tmpdir(), "bench-redis-"));
  const socketPath = join(folder, "redis.sock");
  const port = await freePort();
  const children: ChildProcess[] = [];
  let admin: Redis | undefined;
  const stop = async () => {
    admin?.disconnect();
    for (const child of children.reverse()) await stopServer(child);
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    const socketArgs = options.unixSocket
      ? ["--unixsocket", socketPath, "--unixsocketperm", "700"]
      : [];
    children.push(
      await spawnServer(["--port", String(port), "--bind", "127.0.0.1", ...socketArgs], folder),
    );
    const tcpUrl = `redis://127.0.0.1:${port}`;
    admin = await connectWhenUp(tcpUrl);
    if (options.replica) {
      const replicaPort = await freePort();
      children.push(
        await spawnServer(
          [
            "--port",
            String(replicaPort),
            "--bind",
            "127.0.0.1",
            "--replicaof",
            "127.0.0.1",
            String(port),
          ],
          folder,
        ),
      );
      await waitForReplica(admin);
    }
    return {
      tcpUrl,
      unixUrl: options.unixSocket ? `unix://${socketPath}` : null,
      admin,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
