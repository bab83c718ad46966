/**
 * `npm run doctor` (`node dist/src/main.js doctor` in the image): everything the bot
 * depends on, checked once from this machine with the bot's own configuration, one line
 * per check with a fix for what fails. Read-only: nothing is written to Redis, Telegram or
 * the Payment API, and no money moves (the one Payment API call is GET /availability).
 *
 * Exit codes: 0 when no check failed (warnings allowed), 1 when one did, 2 when the
 * configuration itself does not parse (every problem listed, as `start` lists them).
 */
import { textOf } from "../config/env-values.js";
import { type Config, ConfigError, loadConfig } from "../config/index.js";
import { loadMerchants } from "../config/merchants.js";
import { withEnvFile } from "../env-file.js";
import { paymentChecks } from "./payment.js";
import { redisChecks } from "./redis.js";
import { type CheckResult, exitCodeOf, fail, formatResult, summarize } from "./report.js";
import { configurationCheck, timeZoneCheck } from "./settings.js";
import { telegramChecks } from "./telegram.js";
import { eventsCheck, webAppCheck } from "./urls.js";

export interface DoctorIo {
  /** Where each line goes (stdout). */
  write: (line: string) => void;
  /** The clock the webhook error's age and the time zone are read with. */
  now?: () => number;
}

/** Every check, in a fixed order; the network ones run at once, each under its deadline. */
export async function runChecks(
  config: Config,
  envFile: string | undefined,
  nowMs: number,
): Promise<CheckResult[]> {
  const [telegram, payment, redis, webApp, events] = await Promise.all([
    telegramChecks(config, nowMs),
    paymentChecks(config),
    redisChecks(config),
    webAppCheck(config),
    eventsCheck(config),
  ]);
  return [
    configurationCheck(config, envFile),
    ...telegram,
    ...payment,
    ...redis,
    webApp,
    events,
    timeZoneCheck(config, nowMs),
  ];
}

/** Runs the doctor on `env` (and `.env`, as `start` reads it); resolves to the exit code. */
export async function runDoctor(env: NodeJS.ProcessEnv, io: DoctorIo): Promise<0 | 1 | 2> {
  const now = io.now ?? Date.now;
  // With MERCHANTS_FILE, every merchant is checked with its own settings, one after the other.
  let configs: Array<{ config: Config; merchant?: string }>;
  let file: string | undefined;
  try {
    const read = withEnvFile(env);
    file = read.file;
    configs = textOf(read.env.MERCHANTS_FILE)
      ? loadMerchants(read.env, "start").merchants.map((merchant) => ({
          config: merchant.config,
          merchant: `merchant "${merchant.id}" (${merchant.name})`,
        }))
      : [{ config: loadConfig(read.env, "start") }];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const count = error.problems.length;
    const fact = `${count} problem${count === 1 ? "" : "s"}; nothing else was checked`;
    io.write(
      formatResult(fail("configuration", fact, "see below, and .env.example for every variable")),
    );
    for (const problem of error.problems) io.write(`    - ${problem}`);
    return 2;
  }
  const results: CheckResult[] = [];
  for (const { config, merchant } of configs) {
    if (merchant) io.write(`${merchant}:`);
    const checked = await runChecks(config, file, now());
    for (const result of checked) io.write(formatResult(result));
    results.push(...checked);
  }
  io.write(summarize(results));
  return exitCodeOf(results);
}
