/**
 * `npm run sandbox`: the sandbox as a long-running local server, configured from the
 * environment, with a banner that says how to use it. It never exits the process itself:
 * it throws errors carrying `exitCode` (2 for bad settings, 1 when it cannot start).
 */
import { z } from "zod";
import { ConfigError } from "../config/index.js";
import { createLogger, type Logger } from "../logger.js";
import {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  DEFAULT_SANDBOX_API_KEY,
  DEFAULT_SANDBOX_HOST,
  DEFAULT_SETTLE_DELAY_MS,
  type SandboxOptions,
} from "./options.js";
import { SCRIPTED_NUMBERS } from "./scripted.js";
import { type SandboxHandle, startSandbox } from "./server.js";
import { displayPhone } from "./spec.js";

export const DEFAULT_SANDBOX_PORT = 8090;

export const SANDBOX_USAGE = [
  "usage: npm run sandbox [-- --help]",
  "",
  "Runs the Payment API sandbox on its own until Ctrl-C. Settings come from the environment:",
  `  SANDBOX_HOST, SANDBOX_PORT          where it listens (default ${DEFAULT_SANDBOX_HOST}:${DEFAULT_SANDBOX_PORT})`,
  `  SANDBOX_API_KEYS                    accepted X-API-Key values, comma-separated (default ${DEFAULT_SANDBOX_API_KEY})`,
  "  SANDBOX_CALLBACK_URL                where final statuses are posted, signed (default: none)",
  `  SANDBOX_SETTLE_DELAY_MS             pending -> final after this long (default ${DEFAULT_SETTLE_DELAY_MS})`,
  `  SANDBOX_RATE_LIMIT_PER_MINUTE       requests per minute per key, 0 = off (default ${DEFAULT_RATE_LIMIT_PER_MINUTE})`,
  "  LOG_LEVEL                           trace, debug, info, warn, error, fatal or silent (default info)",
  "",
  "  -h, --help                          this text",
].join("\n");

/**
 * Bad SANDBOX_* settings. A ConfigError, so the entry point reports it like any other bad
 * setting (every problem listed, exit code 2).
 */
export class SandboxSettingsError extends ConfigError {
  readonly exitCode = 2;

  constructor(problems: readonly string[]) {
    super(problems);
    this.name = "SandboxSettingsError";
  }
}

/** The sandbox could not start (e.g. the port is taken): exit code 1. */
export class SandboxCommandError extends Error {
  readonly exitCode = 1;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SandboxCommandError";
  }
}

/** An unset or blank variable is absent. */
const blankIsUnset = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

function wholeNumber(max: number, fallback: number) {
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .regex(/^\d+$/, `must be a whole number from 0 to ${max}`)
      .transform(Number)
      .pipe(z.number().max(max, `must be a whole number from 0 to ${max}`))
      .default(fallback),
  );
}

const SandboxEnvSchema = z.object({
  SANDBOX_HOST: z.preprocess(blankIsUnset, z.string().trim().default(DEFAULT_SANDBOX_HOST)),
  SANDBOX_PORT: wholeNumber(65_535, DEFAULT_SANDBOX_PORT),
  SANDBOX_API_KEYS: z.preprocess(
    blankIsUnset,
    z
      .string()
      .transform((text) => text.split(",").map((key) => key.trim()))
      .pipe(z.array(z.string().min(1, "must not hold an empty key (check the commas)")))
      .default([DEFAULT_SANDBOX_API_KEY]),
  ),
  SANDBOX_CALLBACK_URL: z.preprocess(
    blankIsUnset,
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  ),
  SANDBOX_SETTLE_DELAY_MS: wholeNumber(86_400_000, DEFAULT_SETTLE_DELAY_MS),
  SANDBOX_RATE_LIMIT_PER_MINUTE: wholeNumber(1_000_000, DEFAULT_RATE_LIMIT_PER_MINUTE),
  LOG_LEVEL: z.preprocess(
    blankIsUnset,
    z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  ),
});

export interface SandboxCommandSettings {
  options: SandboxOptions;
  logLevel: string;
}

/** Reads the SANDBOX_* variables; throws a SandboxSettingsError listing every bad one. */
export function parseSandboxEnv(env: NodeJS.ProcessEnv): SandboxCommandSettings {
  const parsed = SandboxEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.map(String).join(".")}: ${issue.message}`,
    );
    throw new SandboxSettingsError(problems);
  }
  const settings = parsed.data;
  return {
    options: {
      host: settings.SANDBOX_HOST,
      port: settings.SANDBOX_PORT,
      apiKeys: settings.SANDBOX_API_KEYS,
      callbackUrl: settings.SANDBOX_CALLBACK_URL,
      settleDelayMs: settings.SANDBOX_SETTLE_DELAY_MS,
      rateLimitPerMinute: settings.SANDBOX_RATE_LIMIT_PER_MINUTE,
    },
    logLevel: settings.LOG_LEVEL,
  };
}

/** The banner: where the sandbox is, how to call it, and what the scripted numbers do. */
function sandboxBanner(sandbox: SandboxHandle, options: SandboxOptions): string {
  const rate = options.rateLimitPerMinute === 0 ? "off" : `${options.rateLimitPerMinute}/min`;
  const rows = SCRIPTED_NUMBERS.map((entry) => {
    const name = entry.name ? `${entry.name.firstName} ${entry.name.lastName}` : "(no account)";
    return `  ${entry.phone}  ${displayPhone(entry.phone).padEnd(18)}  ${entry.operator.padEnd(6)}  ${name.padEnd(20)}  ${entry.behaviour}`;
  });
  return [
    `Payment API sandbox listening on ${sandbox.url}`,
    `  API key (X-API-Key):  ${sandbox.apiKey}`,
    `  X-Sig public key:     ${sandbox.url}/_sandbox/public-key`,
    `  Admin:                ${sandbox.url}/_sandbox/state (also requests, scripted, faults, reset)`,
    `  Callbacks:            ${options.callbackUrl ?? "off (set SANDBOX_CALLBACK_URL)"}`,
    `  Settle delay:         ${options.settleDelayMs} ms; rate limit: ${rate}`,
    "",
    "Scripted numbers:",
    ...rows,
    "  any other MTN/Orange number: a stable generated name; payments succeed",
    "",
  ].join("\n");
}

export interface SandboxCommandIo {
  /** What follows `sandbox` on the command line; only `-h`/`--help` is known. */
  argv?: readonly string[];
  /** Where the banner goes. Default process.stdout. */
  stdout?: { write(text: string): unknown };
  /** Default: a pretty logger at LOG_LEVEL. */
  logger?: Logger;
  /** Stops the sandbox like SIGINT does. */
  stop?: AbortSignal;
}

function stopRequested(stop: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    if (stop?.aborted) onSignal("SIGINT");
    stop?.addEventListener("abort", () => onSignal("SIGINT"), { once: true });
  });
}

/**
 * Runs the sandbox until SIGINT or SIGTERM (or `io.stop`), then closes it and resolves;
 * with `--help` in `io.argv`, prints SANDBOX_USAGE and resolves at once.
 * Reads SANDBOX_HOST (127.0.0.1), SANDBOX_PORT (8090), SANDBOX_API_KEYS (comma-separated,
 * default `sandbox-test-key`), SANDBOX_CALLBACK_URL, SANDBOX_SETTLE_DELAY_MS (3000),
 * SANDBOX_RATE_LIMIT_PER_MINUTE (100, 0 = off) and LOG_LEVEL.
 */
export async function runSandboxCommand(
  env: NodeJS.ProcessEnv,
  io: SandboxCommandIo = {},
): Promise<void> {
  const argv = io.argv ?? [];
  const unknown = argv.filter((arg) => arg !== "-h" && arg !== "--help");
  if (unknown.length > 0) {
    throw new SandboxSettingsError(
      unknown.map((arg) => `${arg}: unknown argument (the sandbox takes only --help)`),
    );
  }
  if (argv.length > 0) {
    (io.stdout ?? process.stdout).write(`${SANDBOX_USAGE}\n`);
    return;
  }
  const { options, logLevel } = parseSandboxEnv(env);
  const logger = io.logger ?? createLogger({ pretty: true, level: logLevel });
  let sandbox: SandboxHandle;
  try {
    sandbox = await startSandbox({ ...options, logger });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SandboxCommandError(
      `the sandbox could not listen on ${options.host}:${options.port}: ${reason}`,
      { cause: error },
    );
  }
  (io.stdout ?? process.stdout).write(sandboxBanner(sandbox, options));
  const signal = await stopRequested(io.stop);
  logger.info({ signal }, "sandbox stopping");
  await sandbox.close();
}
