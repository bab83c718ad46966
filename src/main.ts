/**
 * Command line: `start` (the bot, per the environment), `demo` (everything on this
 * machine, in the terminal), `sandbox` (the local Payment API alone).
 * Exit codes: 0 clean stop, 1 start-up failure, 2 bad configuration or usage.
 */
import { StartupError, startApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { describeTarget } from "./store/redis-target.js";

const USAGE = "usage: main.js start | demo | sandbox";

/** How long a stop may take before the process exits anyway. */
const STOP_DEADLINE_MS = 20_000;

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Runs `stop` on the first SIGTERM/SIGINT and exits 0, or 1 past the deadline. */
function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    setTimeout(() => {
      logger.error("stop took too long; exiting");
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "stop failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

async function start(): Promise<void> {
  const config = loadConfig(process.env, "start");
  const logger = createLogger({ level: config.logLevel });
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
      http: app.http?.url,
    },
    `payout bot running: ${app.mode}, ${config.payment.env}, @${app.botUsername}, ${config.staff.length} staff, webhook ${config.payment.webhookPath}`,
  );
}

async function main(argv: string[]): Promise<void> {
  const command = argv[0];
  try {
    if (command === "start") return await start();
    if (command === "demo") {
      const { runDemo } = await import("./dev/demo.js");
      return await runDemo(process.env);
    }
    if (command === "sandbox") {
      const { runSandboxCommand } = await import("./sandbox/cli.js");
      return await runSandboxCommand(process.env);
    }
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
