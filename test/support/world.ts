/**
 * The world bot processes (processes.ts) talk to: the Payment API sandbox, the Telegram
 * emulator, and their stores on a test Redis prefix, which the test reads.
 */
import type { TelegramEmulator } from "../../src/dev/telegram-emulator/index.js";
import type { SandboxHandle, SandboxOptions } from "../../src/sandbox/index.js";
import { DEFAULT_MERCHANT_ID, keys, merchantKeyPrefix } from "../../src/store/keys.js";
import {
  createRedisConnection,
  dropPrefix,
  waitForReady,
} from "../../src/store/redis/connection.js";
import type { RedisTarget } from "../../src/store/redis/target.js";
import { createRedisStores } from "../../src/store/redis.js";
import type { Stores } from "../../src/store/types.js";
import { harnessEnv, startServices } from "./harness.js";
import { perTest } from "./per-test.js";
import { stopAllProcesses } from "./processes.js";
import { dropTestPrefix, testPrefix, testRedis, testRedisUrl } from "./redis.js";

/** What bot processes talk to: the sandbox, the emulator, and their stores, read by the test. */
export interface World {
  sandbox: SandboxHandle;
  emulator: TelegramEmulator;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** The prefix of the bot's keys: `prefix`, or on a cluster its default merchant's. */
  storePrefix: string;
  /** The bot's environment (harnessEnv) with this world's Redis and prefix. */
  env: Record<string, string>;
  /** The bot's stores (same Redis, same prefix), for the test to read. */
  stores: Stores;
  /** Kills every process, stops the servers, deletes the prefix's keys on the test Redis. */
  close(): Promise<void>;
}

export interface WorldOptions {
  sandbox?: SandboxOptions;
  /** Extra or overriding environment variables for the bots. */
  env?: Record<string, string>;
  /** Default: the test Redis. */
  redisUrl?: string;
  /**
   * Where the test's own stores connect, when not at `redisUrl` (e.g. through Sentinel;
   * give the bots the same place in `env`). A cluster's target takes REDIS_URL out of the
   * bots' environment, and the keys are dropped there.
   */
  redisTarget?: RedisTarget;
}

/** Starts the sandbox and the emulator for bot processes; `redisUrl` defaults to the test Redis. */
export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const { sandbox, emulator } = await startServices(options.sandbox);
  const prefix = testPrefix("proc");
  const redisUrl = options.redisUrl ?? testRedisUrl();
  const env = harnessEnv(sandbox, emulator, prefix, { REDIS_URL: redisUrl, ...options.env });
  // Sentinel names the server: a REDIS_URL beside REDIS_SENTINELS is refused when it names a
  // database (REDIS_URL=redis://127.0.0.1:6379/7 for the run), so a Sentinel bot gets none.
  if (env.REDIS_SENTINELS) delete env.REDIS_URL;
  const onCluster = options.redisTarget?.kind === "cluster";
  // A cluster names its nodes in REDIS_CLUSTER_NODES; a REDIS_URL beside it is refused.
  if (onCluster) delete env.REDIS_URL;
  const connection = createRedisConnection(options.redisTarget ?? redisUrl);
  await waitForReady(connection, 5000);
  // On a cluster the one merchant of the environment keeps its keys under its hash tag.
  const storePrefix = onCluster ? merchantKeyPrefix(prefix, DEFAULT_MERCHANT_ID) : prefix;
  const stores = createRedisStores(connection, {
    prefix: storePrefix,
    retentionMs: 86_400_000,
  });
  const close = async () => {
    await stopAllProcesses();
    if (onCluster) await dropPrefix(connection, prefix);
    await Promise.all([emulator.close(), sandbox.close(), stores.close()]);
    if (!onCluster) await dropTestPrefix(prefix);
  };
  return { sandbox, emulator, prefix, storePrefix, env, stores, close };
}

/**
 * A fresh World for each test of the enclosing describe: started before the test, closed
 * after it. The object returned reads through to the running test's World.
 */
export function worldPerTest(options: WorldOptions = {}): World {
  const world = perTest(
    () => startWorld(options),
    (running) => running.close(),
  );
  return {
    get sandbox() {
      return world().sandbox;
    },
    get emulator() {
      return world().emulator;
    },
    get prefix() {
      return world().prefix;
    },
    get storePrefix() {
      return world().storePrefix;
    },
    get env() {
      return world().env;
    },
    get stores() {
      return world().stores;
    },
    close: () => world().close(),
  };
}

/**
 * Lets the Telegram polling lease of a killed process lapse now rather than after its
 * 30 s (SIGKILL leaves no chance to release it): time passing, for one key.
 */
export async function lapsePollerLease(world: World): Promise<void> {
  const redis = testRedis();
  await redis.del(keys(world.prefix).lease("telegram-poller"));
  await redis.quit();
}
