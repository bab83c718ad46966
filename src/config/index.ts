/**
 * Environment → typed configuration. Every variable of the configuration contract
 * (shared/DESIGN.md) is parsed here, once, with zod; a bad or missing value becomes one
 * line of a single `ConfigError` that lists every problem with how to fix it.
 */

import { z } from "zod";
import { isRole, ROLES } from "../model/roles.js";
import type { StaffEntry } from "../model/staff.js";
import { may } from "../payouts/policy.js";
import type { BatchSettings, PayoutRules } from "../payouts/types.js";
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from "../time.js";
import {
  httpUrl,
  intInRange,
  isLoopbackHost,
  optionalText,
  readPem,
  textOf,
} from "./env-values.js";
import { type EventsConfig, eventsConfig } from "./events.js";
import { type MetricsConfig, metricsConfig } from "./metrics.js";
import { type RedisConfig, redisConfig, redisEnvShape, redisProblems } from "./redis.js";
import { type ReportsConfig, reportsConfig, reportsEnvShape } from "./reports.js";
import { batchConfig, rulesConfig, rulesEnvShape, rulesProblems } from "./rules.js";
import { type SchedulesConfig, schedulesConfig, schedulesEnvShape } from "./schedules.js";
import { withSecretFiles } from "./secret-files.js";
import { type StepUpConfig, stepUpConfig } from "./step-up.js";
import { type WebAppConfig, webAppConfig } from "./webapp.js";

/**
 * What the program is started for; decides which variables are required (`console`: a
 * command on the server's console, such as `pin-reset`, that needs Redis alone).
 */
export type RunMode = "start" | "demo" | "sandbox" | "console";

const RATE_LIMIT_PER_MINUTE = { sandbox: 100, production: 300 } as const;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * `STAFF=123:admin,456:payer`. Unknown roles and non-numeric ids are errors, not
 * silently dropped: a typo here would lock out or let in the wrong person.
 */
export function parseStaff(raw: string | undefined): { staff: StaffEntry[]; problems: string[] } {
  const staff: StaffEntry[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw.trim() === "") return { staff, problems };
  for (const item of raw.split(",")) {
    const entry = item.trim();
    if (entry === "") continue;
    const match = /^(\d{1,15}):([a-z]+)$/.exec(entry);
    const role = match?.[2];
    if (!match || !role || !isRole(role)) {
      problems.push(
        `"${entry}" is not id:role with a numeric Telegram user id and a role among ${ROLES.join(", ")}`,
      );
      continue;
    }
    const userId = Number(match[1]);
    if (staff.some((known) => known.userId === userId)) {
      problems.push(`user ${userId} is listed twice`);
      continue;
    }
    staff.push({ userId, role });
  }
  return { staff, problems };
}

const envSchema = z.object({
  TELEGRAM_BOT_TOKEN: optionalText().refine(
    (value) => value === undefined || /^\d+:[A-Za-z0-9_-]{20,}$/.test(value),
    { message: "does not look like a bot token from @BotFather (digits:letters)" },
  ),
  TELEGRAM_API_ROOT: httpUrl("https://api.telegram.org").transform(
    (value) => value ?? "https://api.telegram.org",
  ),
  TELEGRAM_WEBHOOK_URL: httpUrl("https://bot.example.com/telegram"),
  TELEGRAM_WEBHOOK_SECRET: optionalText().refine(
    (value) => value === undefined || /^[A-Za-z0-9_-]{1,256}$/.test(value),
    { message: "must be 1-256 characters of A-Z, a-z, 0-9, _ and - (a Telegram rule)" },
  ),
  TELEGRAM_WEBHOOK_REPLY_MS: intInRange(50, 0, 1000),
  PAYMENT_API_KEY: optionalText(),
  PAYMENT_ENV: optionalText()
    .transform((value) => value ?? "sandbox")
    .pipe(z.enum(["sandbox", "production"], { message: 'must be "sandbox" or "production"' })),
  PAYMENT_API_BASE_URL: httpUrl("https://api.example.com"),
  PAYMENT_WEBHOOK_PATH: optionalText()
    .transform((value) => value ?? "/webhooks/payments")
    .refine((value) => /^\/[\w\-./]*$/.test(value), {
      message: "must be a URL path starting with /, e.g. /webhooks/payments",
    }),
  PAYMENT_SIGNATURE_PUBLIC_KEY: optionalText(),
  PAYMENT_WEBHOOK_UNSIGNED: optionalText().refine(
    (value) => value === undefined || value === "allow",
    { message: 'must be "allow" (to accept unsigned callbacks in production) or unset' },
  ),
  PAYMENT_WEBHOOK_REREADS_PER_MINUTE: intInRange(0, 0, 10_000),
  PAYMENT_REQUEST_SIGNING_KEY: optionalText(),
  ...redisEnvShape,
  ...reportsEnvShape,
  ...schedulesEnvShape,
  STAFF: z.string().optional(),
  HTTP_HOST: optionalText().transform((value) => value ?? "0.0.0.0"),
  HTTP_PORT: intInRange(8080, 0, 65535),
  CONFIRMATION_TTL_SECONDS: intInRange(300, 10, 86_400),
  BUTTON_PRESSES_PER_MINUTE: intInRange(60, 20, 1_000_000),
  STATUS_POLL_INTERVAL_MS: intInRange(5000, 100, 3_600_000),
  PAYOUT_STUCK_AFTER_HOURS: intInRange(24, 1, 24 * 30),
  PAYOUT_RETENTION_DAYS: intInRange(90, 1, 3650),
  PAYOUT_STRANDED_AFTER_SECONDS: intInRange(300, 5, 86_400),
  PAYMENT_TIMEOUT_MS: intInRange(15_000, 1000, 120_000),
  ...rulesEnvShape,
  TIME_ZONE: optionalText()
    .transform((value) => canonicalTimeZone(value ?? DEFAULT_TIME_ZONE))
    .refine((zone) => zone !== undefined, {
      message: "must be an IANA time zone name, e.g. Africa/Douala, Africa/Lagos or UTC",
    }),
  LOG_LEVEL: optionalText()
    .transform((value) => value ?? "info")
    .pipe(z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(", ")}` })),
});

export interface Config {
  telegram: {
    token: string | undefined;
    apiRoot: string;
    webhookUrl: string | undefined;
    webhookSecret: string | undefined;
    /**
     * Webhook mode: how long a button press's POST is held for the bot's answer to travel
     * in the HTTP reply (src/http/telegram-reply.ts); 0: never, answered at once.
     */
    webhookReplyMs: number;
  };
  payment: {
    apiKey: string | undefined;
    env: "sandbox" | "production";
    baseUrl: string | undefined;
    rateLimitPerMinute: number;
    webhookPath: string;
    /** PEM text of the key that verifies `X-Sig` on responses and callbacks. */
    signaturePublicKey: string | undefined;
    /** PEM text of the private key that signs our requests. */
    requestSigningKey: string | undefined;
    /** Production without a verification key, explicitly allowed (warned at every start). */
    webhookUnsigned: boolean;
    /**
     * Callback-driven re-reads of payments allowed per minute, across replicas: forged
     * callbacks must not spend the API's rate limit. Default half of that limit.
     */
    webhookRereadsPerMinute: number;
    timeoutMs: number;
  };
  redis: RedisConfig;
  /** Daily digest, availability alerts. */
  reports: ReportsConfig;
  /** Scheduled and recurring payouts (SCHEDULE_*). */
  schedules: SchedulesConfig;
  staff: StaffEntry[];
  http: { host: string; port: number };
  confirmationTtlSeconds: number;
  /** Button presses one person may make in a minute, across replicas; the rest are refused. */
  buttonPressesPerMinute: number;
  statusPollIntervalMs: number;
  stuckAfterMs: number;
  /** A payout still `submitting` this long after its request left is marked `unknown`. */
  strandedAfterMs: number;
  retentionMs: number;
  /** IANA zone of the times shown to users (TIME_ZONE). */
  timeZone: string;
  /** Approvals, daily spending caps and the duplicate warning (config/rules.ts). */
  rules: PayoutRules;
  batch: BatchSettings;
  /** Signed events to the business's systems (config/events.ts); undefined: off. */
  events: EventsConfig | undefined;
  /** The PIN before big money moves (config/step-up.ts); undefined: off. */
  stepUp: StepUpConfig | undefined;
  /** The Mini App (config/webapp.ts): WEBAPP_URL, WEBAPP_AUTH_MAX_AGE_SECONDS. */
  webApp: WebAppConfig;
  /** Prometheus metrics (config/metrics.ts): METRICS_ENABLED, METRICS_PORT, METRICS_HOST. */
  metrics: MetricsConfig;
  logLevel: (typeof LOG_LEVELS)[number];
}

/** Every problem found in the environment, each with how to fix it. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      `Configuration is not valid (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` +
        problems.map((problem) => `  - ${problem}`).join("\n") +
        "\nSee .env.example and docs/configuration.md for every variable.",
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** Telegram only calls https:// webhooks; a local emulator on loopback may use http. */
function isHttpsOrLoopback(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return true; // reported by the schema as not a URL
  }
  if (parsed.protocol === "https:") return true;
  return isLoopbackHost(parsed.hostname);
}

/** True for an http:// URL on a loopback host (a local emulator's). */
function isLoopbackHttp(url: string): boolean {
  return url.startsWith("http:") && isHttpsOrLoopback(url);
}

/**
 * Parses the environment (a secret X may come from the file X_FILE names: secret-files.ts).
 * Throws a `ConfigError` listing every problem; `mode` decides
 * which variables are required (`start` needs the token and the Payment API; the demo and
 * the sandbox bring their own).
 */
export function loadConfig(rawEnv: NodeJS.ProcessEnv, mode: RunMode): Config {
  // Secrets given as files (X_FILE) are read first: everything below sees X.
  const { env, problems } = withSecretFiles(rawEnv);
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join(".")}: ${issue.message}`);
    }
  }
  const { staff, problems: staffProblems } = parseStaff(env.STAFF);
  problems.push(...staffProblems.map((problem) => `STAFF: ${problem}`));
  problems.push(...redisProblems(env));
  problems.push(...rulesProblems(env));
  const events = eventsConfig(env, problems);
  const stepUp = stepUpConfig(env, problems);
  const webApp = webAppConfig(env, problems);
  const metrics = metricsConfig(env, problems);

  // The checks below read the raw environment, so that one bad value above does not hide
  // the problems below: every problem is reported in one go.
  if (mode === "start") {
    if (!textOf(env.TELEGRAM_BOT_TOKEN)) {
      problems.push(
        "TELEGRAM_BOT_TOKEN: required; create a bot with @BotFather and paste its token",
      );
    }
    if (!textOf(env.PAYMENT_API_KEY)) {
      problems.push("PAYMENT_API_KEY: required; generate an API key in the merchant portal");
    }
    if (!textOf(env.PAYMENT_API_BASE_URL)) {
      problems.push("PAYMENT_API_BASE_URL: required; the base URL of the Payment API environment");
    }
    // Someone must be able to manage staff and resolve unknown payouts from the chat.
    if (staffProblems.length === 0 && !staff.some((member) => may(member.role, "manage_staff"))) {
      problems.push(
        textOf(env.STAFF) === undefined
          ? "STAFF: required; at least one admin, e.g. STAFF=123456789:admin"
          : "STAFF: needs at least one admin, e.g. STAFF=123456789:admin,987654321:payer",
      );
    }
  }
  // An unsigned callback is anyone's word: in production it takes an explicit opt-out.
  const unsignedAllowed = textOf(env.PAYMENT_WEBHOOK_UNSIGNED) === "allow";
  if (
    mode === "start" &&
    textOf(env.PAYMENT_ENV) === "production" &&
    !textOf(env.PAYMENT_SIGNATURE_PUBLIC_KEY) &&
    !unsignedAllowed
  ) {
    problems.push(
      "PAYMENT_SIGNATURE_PUBLIC_KEY: required in production, to verify the API's answers and callbacks (from the merchant portal); to run without it anyway, set PAYMENT_WEBHOOK_UNSIGNED=allow",
    );
  }
  const webhookUrl = textOf(env.TELEGRAM_WEBHOOK_URL);
  if (webhookUrl && !isHttpsOrLoopback(webhookUrl)) {
    problems.push(
      "TELEGRAM_WEBHOOK_URL: must start with https:// (Telegram refuses anything else; plain http is only for a local Bot API emulator on 127.0.0.1 or localhost)",
    );
  }
  // Loopback http is for the local emulator: real Telegram would refuse every Mini App button.
  const webAppUrl = webApp.url && URL.canParse(webApp.url) ? new URL(webApp.url) : undefined;
  const apiRoot = textOf(env.TELEGRAM_API_ROOT) ?? "https://api.telegram.org";
  if (mode === "start" && webAppUrl?.protocol === "http:" && !isLoopbackHttp(apiRoot)) {
    problems.push(
      "WEBAPP_URL: http:// only works with the local emulator (TELEGRAM_API_ROOT on 127.0.0.1 or localhost); Telegram opens Mini Apps over https only",
    );
  }
  if (textOf(env.TELEGRAM_WEBHOOK_URL) && !textOf(env.TELEGRAM_WEBHOOK_SECRET)) {
    problems.push(
      "TELEGRAM_WEBHOOK_SECRET: required with TELEGRAM_WEBHOOK_URL, so forged updates are refused",
    );
  }
  const signaturePublicKey = readPem(
    "PAYMENT_SIGNATURE_PUBLIC_KEY",
    textOf(env.PAYMENT_SIGNATURE_PUBLIC_KEY),
    "PUBLIC",
    problems,
  );
  const requestSigningKey = readPem(
    "PAYMENT_REQUEST_SIGNING_KEY",
    textOf(env.PAYMENT_REQUEST_SIGNING_KEY),
    "PRIVATE",
    problems,
  );
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);

  const values = parsed.data;
  return {
    telegram: {
      token: values.TELEGRAM_BOT_TOKEN,
      apiRoot: values.TELEGRAM_API_ROOT,
      webhookUrl: values.TELEGRAM_WEBHOOK_URL,
      webhookSecret: values.TELEGRAM_WEBHOOK_SECRET,
      webhookReplyMs: values.TELEGRAM_WEBHOOK_REPLY_MS,
    },
    payment: {
      apiKey: values.PAYMENT_API_KEY,
      env: values.PAYMENT_ENV,
      baseUrl: values.PAYMENT_API_BASE_URL,
      rateLimitPerMinute: RATE_LIMIT_PER_MINUTE[values.PAYMENT_ENV],
      webhookPath: values.PAYMENT_WEBHOOK_PATH,
      signaturePublicKey,
      requestSigningKey,
      webhookUnsigned: signaturePublicKey === undefined && unsignedAllowed,
      webhookRereadsPerMinute:
        values.PAYMENT_WEBHOOK_REREADS_PER_MINUTE ||
        Math.max(1, Math.floor(RATE_LIMIT_PER_MINUTE[values.PAYMENT_ENV] / 2)),
      timeoutMs: values.PAYMENT_TIMEOUT_MS,
    },
    redis: redisConfig(values, values.PAYMENT_ENV === "production"),
    reports: reportsConfig(values),
    schedules: schedulesConfig(values),
    staff,
    http: { host: values.HTTP_HOST, port: values.HTTP_PORT },
    confirmationTtlSeconds: values.CONFIRMATION_TTL_SECONDS,
    buttonPressesPerMinute: values.BUTTON_PRESSES_PER_MINUTE,
    statusPollIntervalMs: values.STATUS_POLL_INTERVAL_MS,
    stuckAfterMs: values.PAYOUT_STUCK_AFTER_HOURS * 3_600_000,
    strandedAfterMs: values.PAYOUT_STRANDED_AFTER_SECONDS * 1000,
    retentionMs: values.PAYOUT_RETENTION_DAYS * 86_400_000,
    timeZone: values.TIME_ZONE ?? DEFAULT_TIME_ZONE,
    rules: {
      ...rulesConfig(values, values.TIME_ZONE ?? DEFAULT_TIME_ZONE),
      stepUpThresholdXaf: stepUp?.thresholdXaf,
    },
    batch: batchConfig(
      values,
      RATE_LIMIT_PER_MINUTE[values.PAYMENT_ENV],
      values.PAYOUT_STUCK_AFTER_HOURS * 3_600_000,
    ),
    events,
    stepUp,
    webApp,
    metrics,
    logLevel: values.LOG_LEVEL,
  };
}
