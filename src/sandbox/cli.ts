/**
 * `npm run sandbox`: the sandbox as a long-running local server, configured from the
 * environment, with a banner that says how to use it. It never exits the process itself:
 * it throws errors carrying `exitCode` (2 for bad settings, 1 when it cannot start).
 */
import { createPrivateKey, generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
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
/** Where `npm run sandbox` keeps its signing key, relative to the working directory (git-ignored). */
export const DEFAULT_SANDBOX_KEY_FILE = ".sandbox/private-key.pem";

export const SANDBOX_USAGE = [
  "usage: npm run sandbox [-- --help]",
  "",
  "Runs the Payment API sandbox on its own until Ctrl-C. Settings come from the environment:",
  `  SANDBOX_HOST, SANDBOX_PORT          where it listens (default ${DEFAULT_SANDBOX_HOST}:${DEFAULT_SANDBOX_PORT})`,
  `  SANDBOX_API_KEYS                    accepted X-API-Key values, comma-separated (default ${DEFAULT_SANDBOX_API_KEY})`,
  "  SANDBOX_CALLBACK_URL                where final statuses are posted, signed (default: none)",
  `  SANDBOX_SETTLE_DELAY_MS             pending -> final after this long (default ${DEFAULT_SETTLE_DELAY_MS})`,
  `  SANDBOX_RATE_LIMIT_PER_MINUTE       requests per minute per key, 0 = off (default ${DEFAULT_RATE_LIMIT_PER_MINUTE})`,
  `  SANDBOX_KEY_FILE                    its X-Sig private key, made there on first start and kept across restarts; off = a new key every start (default ${DEFAULT_SANDBOX_KEY_FILE})`,
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
  SANDBOX_KEY_FILE: z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .default(DEFAULT_SANDBOX_KEY_FILE)
      .transform((path) => (path.toLowerCase() === "off" ? undefined : path)),
  ),
  LOG_LEVEL: z.preprocess(
    blankIsUnset,
    z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  ),
});

export interface SandboxCommandSettings {
  options: SandboxOptions;
  logLevel: string;
  /** Where the signing key is kept across restarts; undefined: a new key every start. */
  keyFile: string | undefined;
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
    keyFile: settings.SANDBOX_KEY_FILE,
  };
}

/**
 * The private key (PEM) kept in `path`: read when the file is there, else made and written
 * (mode 0600, its folder created), so a restarted sandbox signs with the same key and a bot
 * given its public key keeps trusting it.
 */
export async function keptSandboxKey(path: string): Promise<{ pem: string; created: boolean }> {
  let existing: string | undefined;
  try {
    existing = await readFile(path, "utf8");
  } catch (error) {
    if (!(error instanceof Error && "code" in error && error.code === "ENOENT")) {
      throw new SandboxSettingsError([`SANDBOX_KEY_FILE: cannot read ${path} (${String(error)})`]);
    }
  }
  if (existing !== undefined) {
    try {
      createPrivateKey(existing);
    } catch {
      throw new SandboxSettingsError([
        `SANDBOX_KEY_FILE: ${path} is not a PEM private key (delete it to make a new one)`,
      ]);
    }
    return { pem: existing, created: false };
  }
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  await mkdir(dirname(path), { recursive: true });
  // Written whole under another name, then renamed: a sandbox starting alongside reads a
  // whole key or none.
  const partial = `${path}.${randomUUID()}.tmp`;
  await writeFile(partial, pem, { mode: 0o600 });
  await rename(partial, path);
  return { pem, created: true };
}

/** The banner: where the sandbox is, how to call it, and what the scripted numbers do. */
function sandboxBanner(
  sandbox: SandboxHandle,
  options: SandboxOptions,
  keyFile: string | undefined,
): string {
  const rate = options.rateLimitPerMinute === 0 ? "off" : `${options.rateLimitPerMinute}/min`;
  const rows = SCRIPTED_NUMBERS.map((entry) => {
    const name = entry.name ? `${entry.name.firstName} ${entry.name.lastName}` : "(no account)";
    return `  ${entry.phone}  ${displayPhone(entry.phone).padEnd(18)}  ${entry.operator.padEnd(6)}  ${name.padEnd(20)}  ${entry.behaviour}`;
  });
  return [
    `Payment API sandbox listening on ${sandbox.url}`,
    `  API key (X-API-Key):  ${sandbox.apiKey}`,
    `  X-Sig public key:     ${sandbox.url}/_sandbox/public-key`,
    `  Signing key:          ${keyFile ? `kept in ${keyFile} (the same after a restart)` : "new at every start (SANDBOX_KEY_FILE=off)"}`,
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
 * SANDBOX_RATE_LIMIT_PER_MINUTE (100, 0 = off), SANDBOX_KEY_FILE (.sandbox/private-key.pem,
 * off = a new key every start) and LOG_LEVEL.
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
  const { options, logLevel, keyFile } = parseSandboxEnv(env);
  const logger = io.logger ?? createLogger({ pretty: true, level: logLevel });
  const key = keyFile === undefined ? undefined : await keptSandboxKey(keyFile);
  if (key && keyFile) logger.info({ keyFile, created: key.created }, "sandbox signing key");
  let sandbox: SandboxHandle;
  try {
    sandbox = await startSandbox({ ...options, privateKeyPem: key?.pem, logger });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SandboxCommandError(
      `the sandbox could not listen on ${options.host}:${options.port}: ${reason}`,
      { cause: error },
    );
  }
  (io.stdout ?? process.stdout).write(sandboxBanner(sandbox, options, keyFile));
  const signal = await stopRequested(io.stop);
  logger.info({ signal }, "sandbox stopping");
  await sandbox.close();
}
