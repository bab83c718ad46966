/**
 * The REDIS_* variables (part of config.ts's schema): one server at REDIS_URL, or a
 * primary found through Redis Sentinel (REDIS_SENTINELS), with passwords and TLS.
 *
 * - URL mode: `redis://` or `rediss://` (TLS); the password in the URL or in REDIS_PASSWORD.
 * - Sentinel mode (REDIS_SENTINELS set): REDIS_SENTINEL_NAME (default `mymaster`),
 *   REDIS_PASSWORD for the servers, REDIS_SENTINEL_PASSWORD for the sentinels, REDIS_TLS=on
 *   for TLS to both. REDIS_URL then names nothing: a plain one (compose.yaml sets one) is
 *   ignored, one with a password, a database or `rediss://` is a problem, since what it
 *   says would silently not apply.
 */
import { z } from "zod";
import { type HostPort, type RedisTarget, UNIX_SOCKET_URL } from "../store/redis/target.js";
import { intInRange, optionalText, textOf } from "./env-values.js";

const DEFAULT_URL = "redis://127.0.0.1:6379";
const DEFAULT_SENTINEL_NAME = "mymaster";

/** `host:port` or `[ipv6]:port`. */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/**
 * `REDIS_SENTINELS=10.0.0.1:26379,10.0.0.2:26379`: every entry a host and a port, none
 * twice. Returns the addresses, or the problems.
 */
export function parseSentinels(raw: string): { sentinels: HostPort[]; problems: string[] } {
  const sentinels: HostPort[] = [];
  const problems: string[] = [];
  for (const item of raw.split(",")) {
    const entry = item.trim();
    if (entry === "") continue;
    const match = HOST_PORT.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !(port >= 1 && port <= 65535)) {
      problems.push(`"${entry}" is not host:port (e.g. 10.0.0.5:26379 or [::1]:26379)`);
      continue;
    }
    const host = match[1].replace(/^\[(.*)\]$/, "$1");
    if (sentinels.some((known) => known.host === host && known.port === port)) {
      problems.push(`"${entry}" is listed twice`);
      continue;
    }
    sentinels.push({ host, port });
  }
  if (sentinels.length === 0 && problems.length === 0)
    problems.push("lists no sentinel; e.g. REDIS_SENTINELS=10.0.0.5:26379,10.0.0.6:26379");
  return { sentinels, problems };
}

export const redisEnvShape = {
  REDIS_URL: optionalText()
    .transform((value) => value ?? DEFAULT_URL)
    .refine((value) => /^rediss?:\/\//.test(value) || UNIX_SOCKET_URL.test(value), {
      message:
        "must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379, or a Unix socket, unix:///run/redis/redis.sock?db=0",
    }),
  REDIS_PASSWORD: optionalText(),
  REDIS_SENTINELS: optionalText().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const { sentinels, problems } = parseSentinels(value);
    for (const problem of problems) ctx.addIssue({ code: "custom", message: problem });
    return sentinels;
  }),
  REDIS_SENTINEL_NAME: optionalText().refine(
    (value) => value === undefined || /^\S{1,128}$/.test(value),
    {
      message: "must be the name the sentinels monitor (no spaces), e.g. mymaster",
    },
  ),
  REDIS_SENTINEL_PASSWORD: optionalText(),
  REDIS_TLS: optionalText().refine(
    (value) => value === undefined || value === "on" || value === "off",
    {
      message: 'must be "on" or "off"',
    },
  ),
  REDIS_KEY_PREFIX: optionalText()
    .transform((value) => value ?? "payout-bot:")
    .refine((value) => /^[\w:.-]{1,64}$/.test(value), {
      message: "must be 1-64 characters of letters, digits, _ : . -",
    }),
  REDIS_DURABILITY: optionalText().refine(
    (value) => value === undefined || value === "auto" || value === "local" || value === "off",
    {
      message:
        'must be "auto" (wait until money writes are persisted, on a replica when there is one), "local" (on the local AOF only) or "off"',
    },
  ),
  REDIS_DURABILITY_TIMEOUT_MS: intInRange(2000, 100, 60_000),
};

const redisEnvSchema = z.object(redisEnvShape);
export type RedisEnvValues = z.output<typeof redisEnvSchema>;

export interface RedisConfig {
  target: RedisTarget;
  keyPrefix: string;
  /** Wait until money writes are persisted (store/redis/durability.ts). Default: on in production. */
  durability: "auto" | "local" | "off";
  durabilityTimeoutMs: number;
}

/** What a URL carries beyond a host and a port, or undefined when it is not a URL. */
function urlExtras(
  raw: string,
): { password: boolean; database: boolean; tls: boolean } | undefined {
  try {
    const url = new URL(raw);
    const database = url.pathname.replace(/^\//, "");
    return {
      password: url.password !== "" || url.username !== "",
      database: database !== "" && database !== "0",
      tls: url.protocol === "rediss:",
    };
  } catch {
    return undefined;
  }
}

/**
 * Problems between REDIS_* variables, read from the raw environment so that a bad value
 * elsewhere does not hide them (each variable's own format is checked by the schema).
 */
export function redisProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const sentinelMode = textOf(env.REDIS_SENTINELS) !== undefined;
  const url = textOf(env.REDIS_URL);
  const extras = url === undefined ? undefined : urlExtras(url);
  if (sentinelMode) {
    if (extras?.password || extras?.database || extras?.tls) {
      problems.push(
        "REDIS_URL: not used with REDIS_SENTINELS (the sentinels name the server), so its password, database or rediss:// would not apply; put the password in REDIS_PASSWORD, use REDIS_TLS=on for TLS, keep database 0 (REDIS_KEY_PREFIX separates bots), and unset REDIS_URL",
      );
    }
    return problems;
  }
  for (const name of ["REDIS_SENTINEL_NAME", "REDIS_SENTINEL_PASSWORD"] as const) {
    if (textOf(env[name]) !== undefined) problems.push(`${name}: only used with REDIS_SENTINELS`);
  }
  if (textOf(env.REDIS_TLS) !== undefined) {
    problems.push(
      "REDIS_TLS: only used with REDIS_SENTINELS; with REDIS_URL write rediss:// for TLS",
    );
  }
  if (textOf(env.REDIS_PASSWORD) !== undefined && extras?.password) {
    problems.push("REDIS_PASSWORD: REDIS_URL has a password too; keep one of them");
  }
  return problems;
}

/** The Redis part of the configuration, from values the schema accepted. */
export function redisConfig(values: RedisEnvValues, production: boolean): RedisConfig {
  const target: RedisTarget = values.REDIS_SENTINELS
    ? {
        kind: "sentinel",
        sentinels: values.REDIS_SENTINELS,
        name: values.REDIS_SENTINEL_NAME ?? DEFAULT_SENTINEL_NAME,
        password: values.REDIS_PASSWORD,
        sentinelPassword: values.REDIS_SENTINEL_PASSWORD,
        tls: values.REDIS_TLS === "on",
      }
    : { kind: "url", url: values.REDIS_URL, password: values.REDIS_PASSWORD };
  return {
    target,
    keyPrefix: values.REDIS_KEY_PREFIX,
    durability: values.REDIS_DURABILITY ?? (production ? "auto" : "off"),
    durabilityTimeoutMs: values.REDIS_DURABILITY_TIMEOUT_MS,
  };
}
