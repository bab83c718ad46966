/**
 * Command line: `start` (the bot, per the environment), `doctor` (checks everything the bot
 * depends on, one line each; src/doctor/), `pin-reset <telegram user id>` (a step-up PIN
 * reset on the server's console; see pin-reset-command.ts), `demo` (everything on this
 * machine, in the terminal), `sandbox` (the local Payment API alone), `emulator` (a local
 * Telegram Bot API alone, with a terminal chat).
 * Exit codes: 0 clean stop, 1 start-up failure, 2 bad configuration or usage; `doctor`: 0
 * all checks held (warnings allowed), 1 one failed, 2 bad configuration.
 */
import { StartupError, startApp } from "./app.js";
import { startMerchantsApp } from "./app-merchants.js";
import { textOf } from "./config/env-values.js";
import { ConfigError, loadConfig } from "./config/index.js";
import { loadMerchants } from "./config/merchants.js";
import { runDoctor } from "./doctor/index.js";
import { withEnvFile } from "./env-file.js";
import { createLogger, type Logger } from "./logger.js";
import { runPinReset } from "./pin-reset-command.js";
import { describeTarget } from "./store/redis/target.js";

const USAGE =
  "usage: main.js start | doctor | pin-reset <telegram user id> | demo | sandbox | emulator";

/** How long a stop may take before the process exits anyway. */
const STOP_DEADLINE_MS = 20_000;

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/**
 * Runs `stop` on the first SIGTERM/SIGINT and exits 0, or 1 when it fails or passes the
 * deadline; the last log line is always "stopped", with the exit code.
 */
function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    const exit = (exitCode: number) => {
      logger.info({ signal, exitCode }, "stopped");
      process.exit(exitCode);
    };
    setTimeout(() => {
      logger.error("stop took too long; exiting");
      exit(1);
    }, STOP_DEADLINE_MS).unref();
    stop().then(
      () => exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "stop failed");
        exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

async function start(): Promise<void> {
  const { env, file: envFile } = withEnvFile(process.env);
  if (textOf(env.MERCHANTS_FILE)) return startMerchants(env, envFile);
  const config = loadConfig(env, "start");
  const logger = createLogger({ level: config.logLevel });
  if (envFile) logger.info({ envFile }, "read .env (the real environment wins over it)");
  const app = await startApp({ config, logger });
  onShutdown(logger, () => app.stop());
  logger.info(
    {
      mode: app.mode,
      environment: config.payment.env,
      bot: `@${app.botUsername}`,
      staff: config.staff.length,
      redis: describeTarget(config.redis.target),
      paymentWebhook: config.payment.webhookPath,
      // The address bound (0.0.0.0: every interface), not a URL to reach it by.
      listening: app.http?.listening,
    },
    `payout bot running: ${app.mode}, ${config.payment.env}, @${app.botUsername}, ${config.staff.length} staff, webhook ${config.payment.webhookPath}, HTTP on ${app.http?.listening ?? "none"}`,
  );
}

/**
 * Many businesses (MERCHANTS_FILE): one runtime per merchant behind one Telegram front;
 * SIGHUP re-reads the file (a bad one keeps the merchants as they were, and says why).
 */
async function startMerchants(env: NodeJS.ProcessEnv, envFile: string | undefined): Promise<void> {
  const { merchants } = loadMerchants(env, "start");
  const [first] = merchants;
  const logger = createLogger({ level: first?.config.logLevel ?? "info" });
  if (envFile) logger.info({ envFile }, "read .env (the real environment wins over it)");
  const app = await startMerchantsApp({ env, merchants, logger });
  onShutdown(logger, () => app.stop());
  process.on("SIGHUP", () => {
    logger.info("SIGHUP: reloading MERCHANTS_FILE");
    app.reload().catch((error: unknown) => logger.error({ err: error }, "reload failed"));
  });
  logger.info(
    {
      mode: app.mode,
      bot: `@${app.botUsername}`,
      merchants: [...app.runtimes.keys()],
      listening: app.http?.listening,
    },
    `payout bot running for ${app.runtimes.size} merchants: ${app.mode}, @${app.botUsername}, HTTP on ${app.http?.listening ?? "none"}`,
  );
}

/** Prints one line per check; exits when done, since clients' pools would keep it alive a while. */
async function doctor(): Promise<never> {
  const code = await runDoctor(process.env, {
    write: (line) => process.stdout.write(`${line}\n`),
  });
  process.exit(code);
}

/**
 * The commands that run the repository's tools rather than the bot. Each is loaded only
 * when it runs, by a name the compiler does not follow, so the build (and the runtime
 * image) holds the bot alone.
 */
const TOOLS: Readonly<Record<string, { module: string; entry: string }>> = {
  demo: { module: "./dev/demo.js", entry: "runDemo" },
  sandbox: { module: "./sandbox/cli.js", entry: "runSandboxCommand" },
  emulator: { module: "./dev/emulator-command.js", entry: "runEmulatorCommand" },
};

type ToolEntry = (env: NodeJS.ProcessEnv, io: { argv: readonly string[] }) => Promise<void>;

function isToolEntry(value: unknown): value is ToolEntry {
  return typeof value === "function";
}

function isModuleNotFound(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ERR_MODULE_NOT_FOUND";
}

async function runTool(name: string, argv: readonly string[]): Promise<boolean> {
  const tool = TOOLS[name];
  if (!tool) return false;
  let loaded: unknown;
  try {
    loaded = await import(tool.module);
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    fail(
      `"${name}" is a development tool and is not part of this build (the runtime image ships the bot alone). Run it from a checkout of the repository: npm ci && npm run ${name}`,
      2,
    );
  }
  const entry: unknown =
    typeof loaded === "object" && loaded !== null ? Reflect.get(loaded, tool.entry) : undefined;
  if (!isToolEntry(entry)) throw new Error(`${tool.module} has no ${tool.entry}()`);
  await entry(process.env, { argv });
  return true;
}

async function main(argv: string[]): Promise<void> {
  const command = argv[0] ?? "";
  try {
    if (command === "start") return await start();
    if (command === "doctor") return await doctor();
    if (command === "pin-reset") {
      const { exitCode, message } = await runPinReset(process.env, argv.slice(1));
      if (exitCode !== 0) fail(message, exitCode);
      process.stdout.write(`${message}\n`);
      return;
    }
    if (await runTool(command, argv.slice(1))) return;
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2);
    if (error instanceof StartupError) fail(`Cannot start: ${error.message}`, 1);
    throw error;
  }
  fail(USAGE, 2);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(`Unexpected failure: ${error instanceof Error ? error.message : String(error)}`, 1);
});
