/**
 * A bot under test: a Telegram emulator in this process with emulated users, and the bot
 * (the real app, or the bare Telegraf echo baseline) in a child process polling it (or
 * taking its updates by webhook, with `webhook: true`), run by plain node from the
 * transpiled JavaScript (build.ts), as `npm start` runs it.
 */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import {
  type EmulatedUser,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../src/dev/telegram-emulator/index.js";
import { forkBench, nextMessage, stopChild } from "./child.js";
import { MessageWatcher } from "./flows.js";
import { BotReadySchema, type MemoryReport, MemorySchema, UsageSchema } from "./messages.js";
import type { PaymentApiEndpoint } from "./setup.js";

/** What a bot's process has used so far. */
export interface ProcessUsage {
  cpuMs: number;
  /** System calls that read (sockets, files) and that wrote; null off Linux. */
  readCalls: number | null;
  writeCalls: number | null;
}

/** One bot process under test and what it can be asked. */
export interface BotProcess {
  child: ChildProcess;
  /** The app's HTTP server (payment webhooks), null for the echo bot. */
  httpUrl: string | null;
  /** RSS and heap of the bot's process, after forced GCs when it runs with --expose-gc. */
  memory(): Promise<MemoryReport>;
  /** CPU time the bot's process has used so far, in ms, and its system calls that read or write. */
  usage(): Promise<ProcessUsage>;
}

/** Bot processes (replicas of one bot: same token, same environment) and their emulator. */
export interface ReplicasUnderTest {
  emulator: TelegramEmulator;
  watcher: MessageWatcher;
  users: EmulatedUser[];
  replicas: BotProcess[];
  /** Stops every bot, then the emulator. */
  close(): Promise<void>;
}

export interface BotUnderTest extends BotProcess {
  emulator: TelegramEmulator;
  watcher: MessageWatcher;
  users: EmulatedUser[];
  /** Stops the bot, then the emulator. */
  close(): Promise<void>;
}

export interface AppEnvOptions {
  api: PaymentApiEndpoint;
  redisUrl: string;
  prefix: string;
  /** Telegram user ids made payers (STAFF). */
  payerIds: readonly number[];
  /** PEM: verify the API's X-Sig on answers and callbacks. Default: off. */
  signaturePublicKeyPem?: string;
  /** STATUS_POLL_INTERVAL_MS; default the bot's own default (5000). */
  statusPollIntervalMs?: number;
}

/** A staff admin no benchmark user is (the bot refuses to start without an admin). */
const BENCH_ADMIN_ID = 1;

/**
 * Node's flags in production (package.json's start script, the Dockerfile's CMD, which
 * says why): every app process of the benchmarks runs with them, so they measure what runs.
 */
export const PRODUCTION_NODE_ARGS = ["--max-semi-space-size=8", "--liftoff-only"];

/** The environment `npm start` would get, pointing at the bench's sandbox and Redis. */
export function appEnv(options: AppEnvOptions): Record<string, string> {
  return {
    PAYMENT_API_KEY: options.api.apiKey,
    PAYMENT_API_BASE_URL: options.api.url,
    PAYMENT_ENV: "sandbox",
    PAYMENT_SIGNATURE_PUBLIC_KEY: options.signaturePublicKeyPem ?? "",
    PAYMENT_REQUEST_SIGNING_KEY: "",
    REDIS_URL: options.redisUrl,
    REDIS_KEY_PREFIX: options.prefix,
    // `start` needs an admin on staff; the benchmark's users are payers besides.
    STAFF: [`${BENCH_ADMIN_ID}:admin`, ...options.payerIds.map((id) => `${id}:payer`)].join(","),
    // Long polling, whatever the caller's shell has set.
    TELEGRAM_WEBHOOK_URL: "",
    TELEGRAM_WEBHOOK_SECRET: "",
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: "0",
    STATUS_POLL_INTERVAL_MS: String(options.statusPollIntervalMs ?? 5000),
    // Emulated payers press as fast as the bot answers: far past a person's limit, which the
    // benchmark still counts (its Redis step is in every press's round trip) but never hits.
    BUTTON_PRESSES_PER_MINUTE: "1000000",
    LOG_LEVEL: "silent",
  };
}

export interface StartBotOptions {
  mode: "app" | "merchants" | "floor" | "echo";
  /** Emulated users (private chats) created before the bot starts. */
  userIds: readonly number[];
  /** Extra environment of the bot process (appEnv for the app). */
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** Start the replicas all at once rather than one after the other. Default false. */
  startTogether?: boolean;
  /** The Bot API root the bot gets, from the emulator's (e.g. through a relay). */
  routeTelegram?: (apiRoot: string) => Promise<string>;
  /**
   * Webhook mode: the bot serves Telegram's POSTs on a free port of its own and registers
   * it (TELEGRAM_WEBHOOK_URL, TELEGRAM_WEBHOOK_SECRET, HTTP_PORT). Default false: polling.
   */
  webhook?: boolean;
}

const WEBHOOK_SECRET = "bench-webhook-secret_1";

/** A port nobody listens on right now (the bot binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
}

/** The environment that puts a bench bot in webhook mode on a port of its own. */
async function webhookEnv(): Promise<Record<string, string>> {
  const port = await freePort();
  return {
    HTTP_PORT: String(port),
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
}

/** Starts one bot process polling `apiRoot`; resolves once it is running. */
async function startBotProcess(
  options: StartBotOptions,
  token: string,
  apiRoot: string,
): Promise<BotProcess> {
  const child = forkBench("bot-process.ts", {
    env: {
      BENCH_BOT_MODE: options.mode,
      TELEGRAM_BOT_TOKEN: token,
      TELEGRAM_API_ROOT: apiRoot,
      ...options.env,
      ...(options.webhook ? await webhookEnv() : {}),
    },
    // The app (and the floor bot, on the same runtime) run with the flags `npm start` and the
    // image give node (package.json, Dockerfile).
    nodeArgs: [
      ...(options.mode === "echo" ? [] : PRODUCTION_NODE_ARGS),
      ...(options.nodeArgs ?? []),
    ],
    // As in production: plain node on JavaScript (see build.ts).
    compiled: true,
  });
  let ready: { httpUrl: string | null };
  try {
    ready = await nextMessage(child, BotReadySchema, 60_000, `${options.mode} bot start`);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    child,
    httpUrl: ready.httpUrl,
    memory: () => {
      const answer = nextMessage(child, MemorySchema, 30_000, "bot memory");
      child.send({ type: "memory" });
      return answer;
    },
    usage: async () => {
      const answer = nextMessage(child, UsageSchema, 30_000, "bot cpu usage");
      child.send({ type: "usage" });
      const { cpuMicros, readCalls, writeCalls } = await answer;
      return { cpuMs: cpuMicros / 1000, readCalls, writeCalls };
    },
  };
}

/**
 * Starts an emulator, its users, and `count` bot processes with the same token and
 * environment (replicas sharing Redis, when the environment says so); resolves once all
 * are running.
 */
export async function startReplicas(
  options: StartBotOptions,
  count: number,
): Promise<ReplicasUnderTest> {
  const emulator = await startTelegramEmulator({ maxPollWaitMs: 10_000 });
  const watcher = new MessageWatcher(emulator);
  const users = options.userIds.map((id) =>
    emulator.user({ id, firstName: `Payer ${id}`, languageCode: "en" }),
  );
  const started: BotProcess[] = [];
  const close = async () => {
    await Promise.all(started.map((replica) => stopChild(replica.child)));
    await emulator.close();
  };
  try {
    const apiRoot = options.routeTelegram
      ? await options.routeTelegram(emulator.apiRoot)
      : emulator.apiRoot;
    if (options.startTogether) {
      const all = await Promise.allSettled(
        Array.from({ length: count }, () => startBotProcess(options, emulator.token, apiRoot)),
      );
      for (const result of all) if (result.status === "fulfilled") started.push(result.value);
      const failed = all.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
    } else {
      for (let n = 0; n < count; n++) {
        started.push(await startBotProcess(options, emulator.token, apiRoot));
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { emulator, watcher, users, replicas: started, close };
}

/** Starts an emulator, its users, and the bot process; resolves once the bot is running. */
export async function startBot(options: StartBotOptions): Promise<BotUnderTest> {
  const { replicas, ...rest } = await startReplicas(options, 1);
  const [bot] = replicas;
  if (!bot) throw new Error("no bot process started");
  return { ...rest, ...bot };
}
