/**
 * MERCHANTS_FILE: one bot for many businesses. The file is a JSON list of merchants; each
 * holds the merchant's own settings under the names of today's variables in camelCase
 * (`paymentApiKey` for PAYMENT_API_KEY, `approvalThresholdXaf`, …), and a secret may instead
 * be a path (`paymentApiKeyFile` for PAYMENT_API_KEY_FILE).
 *
 * No rule is written twice: each merchant's fields are mapped back onto the variables' names
 * and the environment parser (`loadConfig`) runs over the environment overlaid with them.
 * The environment gives what the deployment shares (Telegram, Redis, HTTP, metrics, the Mini
 * App); a merchant's own variables are never inherited from it, so one business's key, staff
 * or events never leak into another's. Every problem names the merchant and the field.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { merchantKeyPrefix } from "../store/keys.js";
import { type Config, ConfigError, loadConfig, type RunMode } from "./index.js";

/** The variables a merchant owns: given per merchant in the file, never taken from the environment. */
export const MERCHANT_VARIABLES = [
  "PAYMENT_API_KEY",
  "PAYMENT_ENV",
  "PAYMENT_API_BASE_URL",
  "PAYMENT_SIGNATURE_PUBLIC_KEY",
  "PAYMENT_REQUEST_SIGNING_KEY",
  "PAYMENT_WEBHOOK_UNSIGNED",
  "PAYMENT_WEBHOOK_REREADS_PER_MINUTE",
  "STAFF",
  "CONFIRMATION_TTL_SECONDS",
  "APPROVAL_THRESHOLD_XAF",
  "APPROVAL_RULES",
  "APPROVAL_TTL_HOURS",
  "PAYER_DAILY_LIMIT_XAF",
  "MERCHANT_DAILY_LIMIT_XAF",
  "DUPLICATE_WINDOW_MINUTES",
  "BATCH_MAX_ROWS",
  "STEP_UP_THRESHOLD_XAF",
  "TIME_ZONE",
  "DIGEST_HOUR",
  "ALERT_CHAT_ID",
  "AVAILABILITY_CHECK_SECONDS",
  "EVENTS_URL",
  "EVENTS_SECRET",
  "SCHEDULE_DEFAULT_TIME",
  "SCHEDULE_CATCH_UP_HOURS",
  "SCHEDULE_RETRY_HOURS",
  "SCHEDULE_REMINDER_HOURS",
] as const;

/** Of those, the ones that may come from a file instead (`…File`). */
const MERCHANT_SECRETS = [
  "PAYMENT_API_KEY",
  "PAYMENT_SIGNATURE_PUBLIC_KEY",
  "PAYMENT_REQUEST_SIGNING_KEY",
  "EVENTS_SECRET",
] as const;

/** `PAYMENT_API_KEY` → `paymentApiKey`. */
export function fieldName(variable: string): string {
  return variable
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Field name → the variable it stands for (the `…File` ones included). */
const FIELD_TO_VARIABLE: ReadonlyMap<string, string> = new Map([
  ...MERCHANT_VARIABLES.map((name) => [fieldName(name), name] as const),
  ...MERCHANT_SECRETS.map((name) => [`${fieldName(name)}File`, `${name}_FILE`] as const),
]);

export const MERCHANT_ID_PATTERN = /^[a-z0-9-]{2,32}$/;

const MERCHANT_LANGUAGES = ["en", "fr"] as const;
export type MerchantLanguage = (typeof MERCHANT_LANGUAGES)[number];

/** A setting's value: JSON text, number or boolean, read as the variable's text. */
const valueSchema = z.union([z.string(), z.number(), z.boolean()]).optional();

/** `staff` as the variable's text, or a list of `{ userId, role }`. */
const staffSchema = z.union([
  z.string(),
  z.array(z.object({ userId: z.number().int().positive(), role: z.string() }).strict()),
]);

const entrySchema = z
  .object({
    id: z.string().regex(MERCHANT_ID_PATTERN, {
      message: "must be 2-32 characters of a-z, 0-9 and - (e.g. acme-sarl)",
    }),
    name: z.string().trim().min(1, { message: "required: the name people see" }).max(64),
    language: z.enum(MERCHANT_LANGUAGES, { message: 'must be "en" or "fr"' }).optional(),
    staff: staffSchema.optional(),
  })
  .catchall(valueSchema);

/** One merchant as the bot runs it: its own configuration, stores under its own prefix. */
export interface MerchantConfig {
  id: string;
  name: string;
  /** The language of people whose Telegram language is neither English nor French. */
  language: MerchantLanguage | undefined;
  /** The whole configuration, the shared parts from the environment; `redis.keyPrefix` is the merchant's. */
  config: Config;
  /** REDIS_KEY_PREFIX itself: the few keys of no merchant live under it (store/keys.ts globalKeys). */
  sharedKeyPrefix: string;
  /** What the file said (secret files' text included): a reload restarts a merchant only when it changed. */
  fingerprint: string;
}

export interface MerchantsConfig {
  /** The file's path (for SIGHUP reloads). */
  file: string;
  merchants: MerchantConfig[];
}

/** `PAYMENT_API_KEY: required …` → `merchant "acme" paymentApiKey: required …`. */
function renamed(problem: string, label: string): string | undefined {
  const match = /^([A-Z][A-Z0-9_]*)((?:, [A-Z][A-Z0-9_]*)*):\s*(.*)$/s.exec(problem);
  if (!match) return undefined;
  const names = [match[1] ?? "", ...(match[2] ?? "").split(", ").filter(Boolean)];
  const fields = names.map((name) => {
    const file = name.endsWith("_FILE") ? name.slice(0, -"_FILE".length) : undefined;
    if (file && (MERCHANT_SECRETS as readonly string[]).includes(file))
      return `${fieldName(file)}File`;
    return (MERCHANT_VARIABLES as readonly string[]).includes(name) ? fieldName(name) : undefined;
  });
  if (fields.some((field) => field === undefined)) return undefined;
  return `${label} ${fields.join(", ")}: ${match[3] ?? ""}`;
}

/** The environment without any merchant's variables (nor their `_FILE`s). */
function sharedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const shared: NodeJS.ProcessEnv = { ...env };
  for (const name of MERCHANT_VARIABLES) {
    delete shared[name];
    delete shared[`${name}_FILE`];
  }
  return shared;
}

/**
 * Reads and checks `MERCHANTS_FILE` against the environment. Throws a `ConfigError` listing
 * every problem of every merchant (each named with its field), and those of the shared
 * environment once.
 */
export function loadMerchants(env: NodeJS.ProcessEnv, mode: RunMode = "start"): MerchantsConfig {
  const file = env.MERCHANTS_FILE?.trim() ?? "";
  if (file === "") throw new ConfigError(["MERCHANTS_FILE: not set"]);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new ConfigError([`MERCHANTS_FILE: cannot read "${file}" (${code})`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`MERCHANTS_FILE: "${file}" is not JSON (${why})`]);
  }
  return { file, merchants: parseMerchants(json, env, mode) };
}

/** The merchants of the file's JSON (see `loadMerchants`). */
export function parseMerchants(
  json: unknown,
  env: NodeJS.ProcessEnv,
  mode: RunMode = "start",
): MerchantConfig[] {
  if (!Array.isArray(json) || json.length === 0) {
    throw new ConfigError([
      'MERCHANTS_FILE: must be a JSON list of merchants, e.g. [{"id": "acme", "name": "Acme", …}]',
    ]);
  }
  const problems: string[] = [];
  const shared = new Set<string>();
  const seen = new Set<string>();
  const merchants: MerchantConfig[] = [];
  const base = sharedEnv(env);
  json.forEach((raw: unknown, index) => {
    const rawId = typeof raw === "object" && raw !== null ? Reflect.get(raw, "id") : undefined;
    const label =
      typeof rawId === "string" ? `merchant "${rawId}"` : `merchant #${index + 1} (no id)`;
    const parsed = entrySchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push(`${label} ${issue.path.join(".") || "entry"}: ${issue.message}`);
      }
      return;
    }
    const { id, name, language, staff, ...settings } = parsed.data;
    if (seen.has(id)) {
      problems.push(`${label} id: used twice; every merchant needs its own id`);
      return;
    }
    seen.add(id);
    const overlay: NodeJS.ProcessEnv = { ...base };
    let known = true;
    for (const [field, value] of Object.entries(settings)) {
      if (value === undefined) continue;
      const variable = FIELD_TO_VARIABLE.get(field);
      if (variable === undefined) {
        problems.push(
          `${label} ${field}: not a merchant setting (they are ${[...FIELD_TO_VARIABLE.keys(), "language"].join(", ")})`,
        );
        known = false;
        continue;
      }
      overlay[variable] = String(value);
    }
    if (staff !== undefined) {
      overlay.STAFF =
        typeof staff === "string"
          ? staff
          : staff.map((member) => `${member.userId}:${member.role}`).join(",");
    }
    if (!known) return;
    try {
      const config = loadConfig(overlay, mode);
      const { sharedKeyPrefix } = config.redis;
      config.redis.keyPrefix = merchantKeyPrefix(sharedKeyPrefix, id);
      // A "… with PIN" button opens the Mini App on the merchant whose message it is on.
      if (config.stepUp) config.stepUp.webAppUrl = withMerchant(config.stepUp.webAppUrl, id);
      merchants.push({
        id,
        name,
        language,
        config,
        sharedKeyPrefix,
        fingerprint: JSON.stringify({ entry: parsed.data, config }),
      });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) {
        const named = renamed(problem, label);
        if (named) problems.push(named);
        else shared.add(problem);
      }
    }
  });
  if (problems.length > 0 || shared.size > 0) {
    throw new ConfigError([...shared, ...problems]);
  }
  return merchants;
}

/**
 * `url` naming `merchantId` in its query (`m`): the Mini App's page opened from it names that
 * merchant in its requests (`X-Merchant`), whichever one the person's chat commands act for.
 */
export function withMerchant(url: string, merchantId: string): string {
  const named = new URL(url);
  named.searchParams.set("m", merchantId);
  return named.toString();
}
