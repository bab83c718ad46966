/**
 * What `npm run demo` accepts: a few flags after `demo` and DEMO_* variables. Bad values
 * are reported all at once as a ConfigError, so the entry point prints them and exits 2
 * like any other bad setting.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../config/index.js";
import { LOCALES, type Locale } from "../model/locale.js";
import { ROLES, type Role } from "../model/roles.js";

/** The person at the terminal (of the demo and the emulator), as Telegram would describe them. */
export const DEMO_USER = { id: 424242, firstName: "Demo", username: "demo_user" } as const;

/** A staff role, or `stranger`: someone the bot does not know. */
export const DEMO_ROLES = [...ROLES, "stranger"] as const;
export type DemoRole = Role | "stranger";

export function isDemoRole(value: string): value is DemoRole {
  return (DEMO_ROLES as readonly string[]).includes(value);
}

export interface DemoOptions {
  /** The demo user's role at start; default admin. */
  role: DemoRole;
  /** The emulated user's Telegram `language_code`; default en. */
  languageCode: Locale;
  /** How long a sandbox payment stays pending before its final status; default 3000. */
  settleDelayMs: number;
  /** Where the JSON logs go; default `<tmpdir>/payout-bot-demo-<pid>.log`. */
  logFile: string;
  /** DEMO_LOG_FILE named the file: it is kept. The default one is removed on a clean exit. */
  keepLogFile: boolean;
  /** Where documents the bot sends (exports) are saved, kept; default `<tmpdir>/payout-bot-demo-files`. */
  filesDir: string;
  /** `--help`: print the usage and stop. */
  help: boolean;
}

const DEFAULT_DEMO_SETTLE_DELAY_MS = 3000;
const MAX_SETTLE_DELAY_MS = 600_000;

export const DEMO_USAGE = [
  `usage: npm run demo -- [--role ${DEMO_ROLES.join("|")}] [--lang ${LOCALES.join("|")}]`,
  "",
  "  --role ROLE   who you are to the bot (default admin; also DEMO_ROLE)",
  "  --lang CODE   your Telegram language, en or fr (default en; also DEMO_LANG)",
  "  -h, --help    this text",
  "",
  "Environment (all optional):",
  "  REDIS_URL               Redis to use if one answers (default redis://127.0.0.1:6379);",
  "                          else the demo runs on an in-memory store",
  `  DEMO_SETTLE_DELAY_MS    how long a payment stays pending (default ${DEFAULT_DEMO_SETTLE_DELAY_MS})`,
  "  DEMO_LOG_FILE           where the logs go, kept (default a file in the temp directory,",
  "                          removed on a clean exit)",
  "  DEMO_FILES_DIR          where files the bot sends (/export, batches) are saved, kept (default",
  "                          payout-bot-demo-files in the temp directory)",
  "  LOG_LEVEL, CONFIRMATION_TTL_SECONDS, STATUS_POLL_INTERVAL_MS, PAYMENT_TIMEOUT_MS,",
  "  PAYOUT_STUCK_AFTER_HOURS, PAYOUT_RETENTION_DAYS, TIME_ZONE, DIGEST_HOUR,",
  "  AVAILABILITY_CHECK_SECONDS (default 5 in the demo), APPROVAL_THRESHOLD_XAF",
  "  (100000 in the demo), APPROVAL_TTL_HOURS, PAYER_DAILY_LIMIT_XAF,",
  "  MERCHANT_DAILY_LIMIT_XAF, DUPLICATE_WINDOW_MINUTES: as for npm start",
].join("\n");

/** The arguments after the `demo` command in `process.argv`. */
export function demoArgv(argv: readonly string[]): string[] {
  const at = argv.indexOf("demo");
  return at === -1 ? [] : argv.slice(at + 1);
}

/** Flags as given: the value of each named flag present, and whether help was asked. */
export interface RawFlags<Name extends string> {
  values: ReadonlyMap<Name, string>;
  help: boolean;
}

/**
 * `--name value` and `--name=value` for each of `names`, plus `-h`/`--help`; unknown flags
 * and missing values are added to `problems` (see --help).
 */
export function readFlags<Name extends string>(
  argv: readonly string[],
  names: readonly Name[],
  problems: string[],
): RawFlags<Name> {
  const values = new Map<Name, string>();
  let help = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") {
      help = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const name = names.find((known) => known === match?.[1]);
    if (name === undefined) {
      problems.push(`${arg}: unknown argument (see --help)`);
      continue;
    }
    let value = match?.[2];
    if (value === undefined) {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || value === "" || value.startsWith("--")) {
      problems.push(`--${name}: needs a value`);
      continue;
    }
    values.set(name, value);
  }
  return { values, help };
}

/** A Telegram language the bot speaks (`en`, `fr`), or undefined with a problem added. */
export function languageOf(value: string, problems: string[]): Locale | undefined {
  const lang = value.trim().toLowerCase();
  const languageCode = LOCALES.find((locale) => locale === lang);
  if (languageCode === undefined) {
    problems.push(`language "${lang}": must be one of ${LOCALES.join(", ")}`);
  }
  return languageCode;
}

function settleDelayOf(value: string | undefined, problems: string[]): number {
  if (value === undefined || value.trim() === "") return DEFAULT_DEMO_SETTLE_DELAY_MS;
  const parsed = Number(value.trim());
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > MAX_SETTLE_DELAY_MS) {
    problems.push(
      `DEMO_SETTLE_DELAY_MS: must be a whole number from 0 to ${MAX_SETTLE_DELAY_MS} (got "${value}")`,
    );
    return DEFAULT_DEMO_SETTLE_DELAY_MS;
  }
  return parsed;
}

/**
 * Reads the demo's flags (flags win over DEMO_ROLE / DEMO_LANG) and DEMO_* variables.
 * Throws a ConfigError listing every problem.
 */
export function parseDemoOptions(argv: readonly string[], env: NodeJS.ProcessEnv): DemoOptions {
  const problems: string[] = [];
  const raw = readFlags(argv, ["role", "lang"], problems);
  const role = (raw.values.get("role") ?? env.DEMO_ROLE ?? "admin").trim().toLowerCase();
  if (!isDemoRole(role)) {
    problems.push(`role "${role}": must be one of ${DEMO_ROLES.join(", ")}`);
  }
  const languageCode = languageOf(raw.values.get("lang") ?? env.DEMO_LANG ?? "en", problems);
  const settleDelayMs = settleDelayOf(env.DEMO_SETTLE_DELAY_MS, problems);
  const namedLogFile = env.DEMO_LOG_FILE?.trim();
  const logFile = namedLogFile || join(tmpdir(), `payout-bot-demo-${process.pid}.log`);
  if (problems.length > 0 || !isDemoRole(role) || languageCode === undefined) {
    throw new ConfigError(problems);
  }
  return {
    role,
    languageCode,
    settleDelayMs,
    logFile,
    keepLogFile: Boolean(namedLogFile),
    filesDir: env.DEMO_FILES_DIR?.trim() || join(tmpdir(), "payout-bot-demo-files"),
    help: raw.help,
  };
}
