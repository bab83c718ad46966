/**
 * `npm run demo`: the whole product in one process, with no accounts, tokens or internet.
 * The Payment API sandbox and the Telegram Bot API emulator run on loopback, the real bot
 * (startApp, as `npm start` runs it) talks to both over HTTP, and the person at the
 * terminal is an emulated Telegram user chatting with it. Settlements arrive the way they
 * do in production: the sandbox calls the bot's payment webhook.
 */

import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { pino } from "pino";
import { type App, StartupError, startApp } from "../app.js";
import { type Config, loadConfig } from "../config/index.js";
import { createLogger, type Logger } from "../logger.js";
import { type SandboxHandle, startSandbox } from "../sandbox/index.js";
import { DemoCast, demoProfiles, demoStaff } from "./demo-cast.js";
import { DemoChat } from "./demo-chat.js";
import { DemoClock, laterCommand } from "./demo-clock.js";
import { demoCommands, documentSaver } from "./demo-commands.js";
import { DEMO_USAGE, type DemoOptions, demoArgv, parseDemoOptions } from "./demo-options.js";
import { banner, type DemoIo, isTty, type Style } from "./demo-render.js";
import { chooseDemoStorage } from "./demo-store.js";
import { freeLoopbackPort } from "./free-port.js";
import { Signals } from "./stop-signals.js";
import { startTelegramEmulator, type TelegramEmulator } from "./telegram-emulator/index.js";
import { buildDevWebPage, miniAppLines, pinCommand, webAppOpener } from "./webapp-link.js";

export { DEMO_USER } from "./demo-options.js";
export type { DemoIo } from "./demo-render.js";

/** Settings of `npm start` the demo lets the environment change; the rest it sets itself. */
const PASSED_THROUGH = [
  "LOG_LEVEL",
  "REDIS_URL",
  "CONFIRMATION_TTL_SECONDS",
  "STATUS_POLL_INTERVAL_MS",
  "PAYMENT_TIMEOUT_MS",
  "PAYOUT_STUCK_AFTER_HOURS",
  "PAYOUT_RETENTION_DAYS",
  "TIME_ZONE",
  "DIGEST_HOUR",
  "AVAILABILITY_CHECK_SECONDS",
  "APPROVAL_THRESHOLD_XAF",
  "APPROVAL_TTL_HOURS",
  "PAYER_DAILY_LIMIT_XAF",
  "MERCHANT_DAILY_LIMIT_XAF",
  "DUPLICATE_WINDOW_MINUTES",
  "STEP_UP_THRESHOLD_XAF",
] as const;

/** The demo's approval threshold, unless APPROVAL_THRESHOLD_XAF says otherwise. */
const DEMO_APPROVAL_THRESHOLD_XAF = "100000";

/** The demo's PIN threshold, unless STEP_UP_THRESHOLD_XAF says otherwise: over approval's. */
const DEMO_STEP_UP_THRESHOLD_XAF = "500000";
/** How long after a payment settles piped input still waits for the bot to say so. */
const SETTLED_NOTICE_GRACE_MS = 1000;

/** The Mini App on loopback http (WEBAPP_URL takes http for a loopback host only). */
const DEMO_WEBAPP_URL = (port: number) => `http://127.0.0.1:${port}/app/`;

/** How long stopping may take before the process exits anyway. */
const STOP_DEADLINE_MS = 20_000;

/** The bot's environment before the sandbox and the emulator exist. */
function demoEnv(env: NodeJS.ProcessEnv, keyPrefix: string) {
  const picked: Record<string, string> = {
    STATUS_POLL_INTERVAL_MS: "2000",
    // Operators are checked often, so that a :suspend shows its alert within seconds.
    AVAILABILITY_CHECK_SECONDS: "5",
    APPROVAL_THRESHOLD_XAF: DEMO_APPROVAL_THRESHOLD_XAF,
    // Big payouts need the PIN, typed in the Mini App served by the bot on loopback http.
    STEP_UP_THRESHOLD_XAF: DEMO_STEP_UP_THRESHOLD_XAF,
  };
  for (const name of PASSED_THROUGH) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") picked[name] = value;
  }
  return {
    ...picked,
    REDIS_KEY_PREFIX: keyPrefix,
    // One person per role (demo-cast.ts): nobody approves their own payouts.
    STAFF: demoStaff(),
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: "0",
    WEBAPP_URL: DEMO_WEBAPP_URL(80),
    PAYMENT_ENV: "sandbox",
  };
}

/** Steps to undo, run last-in first-out; a failing step is logged and the rest still run. */
class Cleanups {
  readonly #steps: Array<() => Promise<unknown>> = [];
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  push(step: () => Promise<unknown>): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    for (const step of this.#steps.splice(0).reverse()) {
      await step().catch((error: unknown) =>
        this.#logger.warn({ err: error }, "demo stop step failed"),
      );
    }
  }
}

interface Running {
  app: App;
  clock: DemoClock;
  sandbox: SandboxHandle;
  cast: DemoCast;
  emulator: TelegramEmulator;
  storage: string;
}

/** The demo's settings, checked before anything starts. */
interface Plan {
  options: DemoOptions;
  keyPrefix: string;
  baseEnv: Record<string, string>;
  baseConfig: Config;
  /** NO_COLOR is set: no ANSI styles even on a terminal (https://no-color.org). */
  noColor: boolean;
}

/** Starts the sandbox, the emulator and the app, wired together; registers their stops. */
async function startParts(plan: Plan, logger: Logger, cleanups: Cleanups): Promise<Running> {
  const { options, keyPrefix, baseEnv, baseConfig } = plan;
  const { target } = baseConfig.redis;
  const storage = await chooseDemoStorage({
    // The demo passes only REDIS_URL through (PASSED_THROUGH): never a Sentinel target.
    redisUrl: target.kind === "url" ? target.url : "redis://127.0.0.1:6379",
    keyPrefix,
    retentionMs: baseConfig.retentionMs,
    timeZone: baseConfig.timeZone,
    logger,
  });
  cleanups.push(() => storage.close());
  const sandbox = await startSandbox({
    settleDelayMs: options.settleDelayMs,
    logger: logger.child({ component: "sandbox" }),
  });
  cleanups.push(() => sandbox.close());
  const emulator = await startTelegramEmulator();
  cleanups.push(() => emulator.close());
  // The Mini App's URL names the bot's port, so the port is chosen before the bot starts.
  const port = await freeLoopbackPort();
  const config = loadConfig(
    {
      ...baseEnv,
      HTTP_PORT: String(port),
      WEBAPP_URL: DEMO_WEBAPP_URL(port),
      TELEGRAM_BOT_TOKEN: emulator.token,
      TELEGRAM_API_ROOT: emulator.apiRoot,
      PAYMENT_API_KEY: sandbox.apiKey,
      PAYMENT_API_BASE_URL: sandbox.url,
      PAYMENT_SIGNATURE_PUBLIC_KEY: sandbox.publicKeyPem,
    },
    "demo",
  );
  const webAppDir = await buildDevWebPage();
  cleanups.push(() => rm(webAppDir, { recursive: true, force: true }));
  const clock = new DemoClock();
  const { stores } = storage;
  const app = await startApp({ config, logger, stores, webAppDir, now: clock.now });
  cleanups.push(() => app.stop());
  if (!app.http) throw new StartupError("the bot's HTTP server did not start");
  sandbox.setCallbackUrl(`${app.http.url}${config.payment.webhookPath}`);
  const cast = new DemoCast(emulator, options.languageCode, options.role);
  // Every person of the demo has a Telegram app in the demo's language: the cards and
  // notices they get before they first write are in it, as they would be in Telegram.
  for (const { id, firstName, username } of demoProfiles()) {
    await app.stores.profiles.set(id, { firstName, username, locale: options.languageCode });
  }
  return { app, clock, sandbox, cast, emulator, storage: storage.description };
}

function plan(env: NodeJS.ProcessEnv, argv: readonly string[]): Plan {
  const options = parseDemoOptions(argv, env);
  const keyPrefix = `demo:${randomUUID().slice(0, 8)}:`;
  const baseEnv = demoEnv(env, keyPrefix);
  const baseConfig = loadConfig(baseEnv, "demo");
  return { options, keyPrefix, baseEnv, baseConfig, noColor: Boolean(env.NO_COLOR) };
}

/** Chats until the person leaves; resolves with why. */
async function chat(running: Running, plan: Plan, io: DemoIo, signals: Signals) {
  const { options } = plan;
  const style: Style = { ansi: isTty(io.output) && !plan.noColor };
  const { token } = running.emulator;
  const session = new DemoChat({
    emulator: running.emulator,
    user: running.cast.user,
    io,
    style,
    interactive: isTty(io.input) && isTty(io.output),
    commands: {
      ...demoCommands(running.sandbox, running.app.config.reports.availabilityCheckMs / 1000),
      later: laterCommand(running.clock, running.app.config.timeZone),
      pin: pinCommand(token, (chatId) => running.emulator.messages(chatId), running.clock.now),
    },
    opens: webAppOpener(token, {
      now: running.clock.now,
      hint: "Or type :pin and six digits: the demo types them in that page, as a browser would.",
    }),
    saveDocument: documentSaver(options.filesDir),
    cast: running.cast,
    // A payment settling, or settled under a second ago: its callback, the bot's re-read and
    // the Paid notice (the notifier looks every 500 ms) are still on their way.
    busy: () =>
      running.sandbox.settlingCount() > 0 ||
      Date.now() - running.sandbox.lastFinalAtMs() < SETTLED_NOTICE_GRACE_MS,
  });
  signals.onSignal(() => session.end("interrupt"));
  // A closed output (the reader of a pipe left) ends the demo instead of crashing it.
  io.output.on("error", () => session.end("end-of-input"));
  const facts = {
    userName: running.cast.person.firstName,
    userId: running.cast.person.id,
    approvalThresholdXaf: running.app.config.rules.approvalThresholdXaf,
    stepUpThresholdXaf: running.app.config.stepUp?.thresholdXaf,
    role: options.role,
    languageCode: options.languageCode,
    storage: running.storage,
    logFile: options.logFile,
    keepLogFile: options.keepLogFile,
    settleDelayMs: options.settleDelayMs,
  };
  const person = running.cast.person;
  const http = running.app.http;
  const miniApp = http
    ? miniAppLines(`${http.url}/app/`, token, {
        id: person.id,
        firstName: person.firstName,
        languageCode: options.languageCode,
      })
    : [];
  session.start([banner(facts, style), "", ...miniApp].join("\n"));
  return session.finished;
}

/**
 * Runs the demo until `:quit`, end of input or SIGINT/SIGTERM, then stops everything,
 * deletes the demo's Redis keys and resolves. Flags come from `io.argv` (default: what
 * follows `demo` in `process.argv`); see DEMO_USAGE. Throws a ConfigError for bad flags or
 * settings and a StartupError when a part cannot start.
 */
export async function runDemo(
  env: NodeJS.ProcessEnv,
  io?: DemoIo & { argv?: readonly string[] },
): Promise<void> {
  const streams: DemoIo = {
    input: io?.input ?? process.stdin,
    output: io?.output ?? process.stdout,
  };
  const { output } = streams;
  const settings = plan(env, io?.argv ?? demoArgv(process.argv));
  if (settings.options.help) {
    output.write(`${DEMO_USAGE}\n`);
    return;
  }
  const { logFile } = settings.options;
  const destination = pino.destination({ dest: logFile, sync: true, mkdir: true });
  const logger = createLogger({ level: settings.baseConfig.logLevel, destination });
  const cleanups = new Cleanups(logger);
  const signals = new Signals(output);
  output.write(`Starting the demo (logs: ${logFile})…\n`);
  let clean = false;
  try {
    const running = await startParts(settings, logger, cleanups);
    const why = signals.received ? "interrupt" : await chat(running, settings, streams, signals);
    logger.info({ why }, "demo stopping");
    output.write("Stopping…\n");
    setTimeout(() => {
      output.write("Stopping took too long; exiting.\n");
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    await cleanups.run();
    logger.info("demo stopped");
    clean = true;
    output.write("Stopped. Bye.\n");
  } finally {
    await cleanups.run();
    signals.unhook();
    destination.end();
    // A log nobody asked for is not left behind; after a failure it is kept for reading.
    if (clean && !settings.options.keepLogFile) rmSync(logFile, { force: true });
  }
}
