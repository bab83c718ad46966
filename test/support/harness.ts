/**
 * The whole product on loopback for end-to-end tests: the Payment API sandbox, the
 * Telegram Bot API emulator, a real Redis (own key prefix), and the real app started as
 * `npm start` starts it (`startApp`), talking to the first two over real HTTP.
 */
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/index.js";
import {
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../src/dev/telegram-emulator/index.js";
import { type Logger, silentLogger } from "../../src/logger.js";
import type { EventRetryPolicy } from "../../src/payouts/loops/events.js";
import { type SandboxHandle, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";
import type { Stores } from "../../src/store/types.js";
import { perTest } from "./per-test.js";
import { dropTestPrefix, testPrefix, testRedisUrl } from "./redis.js";

export const ADMIN_ID = 1001;
export const PAYER_ID = 1002;
export const VIEWER_ID = 1003;
export const APPROVER_ID = 1004;
export const STRANGER_ID = 9999;

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  /** Extra or overriding environment variables for the bot. */
  env?: Record<string, string>;
  /** Use these stores instead of Redis (the in-memory ones). */
  stores?: Stores;
  /** Start the app's HTTP server (webhooks, health). Default true. */
  http?: boolean;
  /** The app's clock, for tests that move time forward. Default Date.now. */
  now?: () => number;
  /** The app's logger. Default silent. */
  logger?: Logger;
  /** Signed events' retry pauses (short ones, for tests that cannot wait 5 s). */
  eventRetry?: EventRetryPolicy;
  /** The Mini App's built page (see web/build.ts); default dist/web/ when built. */
  webAppDir?: string;
}

export interface Harness {
  sandbox: SandboxHandle;
  emulator: TelegramEmulator;
  app: App;
  prefix: string;
  env: Record<string, string>;
  /** Stops the app, the emulator and the sandbox, and deletes the test's keys. */
  close(): Promise<void>;
}

/** Environment for a bot wired to `sandbox` and `emulator`, with four staff members. */
export function harnessEnv(
  sandbox: SandboxHandle,
  emulator: TelegramEmulator,
  prefix: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: emulator.token,
    TELEGRAM_API_ROOT: emulator.apiRoot,
    PAYMENT_API_KEY: sandbox.apiKey,
    PAYMENT_API_BASE_URL: sandbox.url,
    PAYMENT_SIGNATURE_PUBLIC_KEY: sandbox.publicKeyPem,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: prefix,
    STAFF: `${ADMIN_ID}:admin,${PAYER_ID}:payer,${VIEWER_ID}:viewer,${APPROVER_ID}:approver`,
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: "0",
    STATUS_POLL_INTERVAL_MS: "200",
    PAYMENT_TIMEOUT_MS: "2000",
    LOG_LEVEL: "silent",
    ...extra,
  };
}

/**
 * The Payment API sandbox and the Telegram emulator as the tests want them: payments settle
 * 150 ms after they are made, no rate limit (unless `sandbox` says otherwise), and a long
 * poll ends after 1 s at most: the whole timeout of the polls in-process apps make, as
 * Telegram would hold them (a poll answered sooner than its timeout makes the bot pause).
 */
export async function startServices(
  sandboxOptions: SandboxOptions = {},
): Promise<{ sandbox: SandboxHandle; emulator: TelegramEmulator }> {
  const sandbox = await startSandbox({
    settleDelayMs: 150,
    rateLimitPerMinute: 0,
    ...sandboxOptions,
  });
  const emulator = await startTelegramEmulator({ maxPollWaitMs: 1000 });
  return { sandbox, emulator };
}

/** Starts the sandbox, the emulator and the app on the test Redis under a fresh prefix. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { sandbox, emulator } = await startServices(options.sandbox);
  const prefix = testPrefix("e2e");
  const env = harnessEnv(sandbox, emulator, prefix, options.env);
  let app: App;
  try {
    app = await startApp({
      config: loadConfig(env, "start"),
      logger: options.logger ?? silentLogger,
      stores: options.stores,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
      http: options.http,
      now: options.now,
      ...(options.eventRetry ? { eventRetry: options.eventRetry } : {}),
      ...(options.webAppDir ? { webAppDir: options.webAppDir } : {}),
    });
  } catch (error) {
    await emulator.close();
    await sandbox.close();
    throw error;
  }
  return {
    sandbox,
    emulator,
    app,
    prefix,
    env,
    close: async () => {
      await app.stop();
      await emulator.close();
      await sandbox.close();
      await dropTestPrefix(prefix);
    },
  };
}

/**
 * A fresh harness (`startHarness(options)`) for each test of the enclosing describe:
 * started before the test, closed after it. The object returned reads through to the
 * running test's harness.
 */
export function harnessPerTest(options: HarnessOptions = {}): Harness {
  const harness = perTest(
    () => startHarness(options),
    (running) => running.close(),
  );
  return {
    get sandbox() {
      return harness().sandbox;
    },
    get emulator() {
      return harness().emulator;
    },
    get app() {
      return harness().app;
    },
    get prefix() {
      return harness().prefix;
    },
    get env() {
      return harness().env;
    },
    close: () => harness().close(),
  };
}
