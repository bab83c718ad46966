/**
 * Finds a Redis for the test run, as DESIGN.md says: `REDIS_URL` (default
 * redis://127.0.0.1:6379) when it answers; else a private `redis-server` on a free
 * port when one is on the PATH; else the run fails with a message saying how to get
 * Redis. Tests never skip for want of Redis.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { freePort, redisAnswers } from "./net.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

async function startPrivateRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await redisAnswers(url)) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`a private redis-server on port ${port} did not start`);
}

export default async function setup(project: TestProject): Promise<() => void> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (await redisAnswers(url)) {
    project.provide("redisUrl", url);
    return () => {};
  }
  const onPath = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
  if (!onPath) {
    throw new Error(
      `No Redis answers at ${url} and redis-server is not on the PATH.\n` +
        "The tests need a real Redis 7: start one (redis-server --daemonize yes --port 6379),\n" +
        "install it (apt-get install -y redis-server), or set REDIS_URL to one that answers.",
    );
  }
  const { url: privateUrl, child } = await startPrivateRedis();
  project.provide("redisUrl", privateUrl);
  return () => {
    child.kill("SIGTERM");
  };
}
