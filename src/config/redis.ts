/**
 * The REDIS_* variables (part of config.ts's schema): one server at REDIS_URL, or a
 * primary found through Redis Sentinel (REDIS_SENTINELS), with passwords and TLS.
 *
 * - URL mode: `redis://` or `rediss://` (TLS); the password in the URL or in REDIS_PASSWORD.
 * - Cluster mode (REDIS_CLUSTER_NODES set): some of the cluster's nodes; REDIS_PASSWORD for
 *   every node, REDIS_TLS=on for TLS. Not with REDIS_SENTINELS, nor with a REDIS_URL other
 *   than the default (either would name another Redis). The single merchant of the
 *   environment keeps its keys under `merchantKeyPrefix(REDIS_KEY_PREFIX, "default")`, so
 *   they share one hash tag as every merchant's do.
 * - Sentinel mode (REDIS_SENTINELS set): REDIS_SENTINEL_NAME (default `mymaster`),
 *   REDIS_PASSWORD for the servers, REDIS_SENTINEL_PASSWORD for the sentinels, REDIS_TLS=on
 *   for TLS to both. REDIS_URL then names nothing: a plain one (compose.yaml sets one) is
 *   ignored, one with a password, a database or `rediss://` is a problem, since what it
 *   says would silently not apply.
 */
import { z } from "zod";
import { DEFAULT_MERCHANT_ID, merchantKeyPrefix } from "../store/keys.js";
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
  const { addresses, problems } = parseHostPorts(raw, "10.0.0.5:26379");
  if (addresses.length === 0 && problems.length === 0)
    problems.push("lists no sentinel; e.g. REDIS_SENTINELS=10.0.0.5:26379,10.0.0.6:26379");
  return { sentinels: addresses, problems };
}

/**
 * `REDIS_CLUSTER_NODES=10.0.0.1:6379,10.0.0.2:6379`: some of the cluster's nodes (the
 * client learns the others), every entry a host and a port, none twice.
 */
export function parseClusterNodes(raw: string): { nodes: HostPort[]; problems: string[] } {
  const { addresses, problems } = parseHostPorts(raw, "10.0.0.5:6379");
  if (addresses.length === 0 && problems.length === 0)
    problems.push("lists no node; e.g. REDIS_CLUSTER_NODES=10.0.0.5:6379,10.0.0.6:6379");
  return { nodes: addresses, problems };
}

function parseHostPorts(
  raw: string,
  example: string,
): { addresses: HostPort[]; problems: string[] } {
  const sentinels: HostPort[] = [];
  const problems: string[] = [];
  for (const item of raw.split(",")) {
    const entry = item.trim();
    if (entry === "") continue;
    const match = HOST_PORT.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !(port >= 1 && port <= 65535)) {
      problems.push(
        `"${entry}" is not host:port (e.g. ${example} or [::1]:${example.split(":")[1]})`,
      );
      continue;
    }
    const host = match[1].replace(/^\[(.*)\]$/, "$1");
    if (sentinels.some((known) => known.host === host && known.port === port)) {
      problems.push(`"${entry}" is listed twice`);
      continue;
    }
    sentinels.push({ host, port });
  }
  return { addresses: sentinels, problems };
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
  REDIS_CLUSTER_NODES: optionalText().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const { nodes, problems } = parseClusterNodes(value);
    for (const problem of problems) ctx.addIssue({ code: "custom", message: problem });
    return nodes;
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
  /** The prefix of this merchant's keys (on a cluster, hash-tagged: store/keys.ts). */
  keyPrefix: string;
  /** REDIS_KEY_PREFIX itself: the keys of no merchant (store/keys.ts globalKeys). */
  sharedKeyPrefix: string;
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
  const clusterMode = textOf(env.REDIS_CLUSTER_NODES) !== undefined;
  const url = textOf(env.REDIS_URL);
  const extras = url === undefined ? undefined : urlExtras(url);
  if (clusterMode) {
    // Each of these names another Redis than the cluster: which one was meant is not ours to guess.
    if (url !== undefined) {
      problems.push(
        "REDIS_CLUSTER_NODES, REDIS_URL: both name a Redis; keep one (a cluster takes its password in REDIS_PASSWORD and TLS with REDIS_TLS=on)",
      );
    }
    for (const name of ["REDIS_SENTINELS", "REDIS_SENTINEL_NAME", "REDIS_SENTINEL_PASSWORD"]) {
      if (textOf(env[name]) !== undefined)
        problems.push(`REDIS_CLUSTER_NODES, ${name}: a cluster has no sentinels; keep one of them`);
    }
    return problems;
  }
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
      "REDIS_TLS: only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL write rediss:// for TLS",
    );
  }
  if (textOf(env.REDIS_PASSWORD) !== undefined && extras?.password) {
    problems.push("REDIS_PASSWORD: REDIS_URL has a password too; keep one of them");
  }
  return problems;
}

/** The Redis part of the configuration, from values the schema accepted. */
export function redisConfig(values: RedisEnvValues, production: boolean): RedisConfig {
  const target: RedisTarget = values.REDIS_CLUSTER_NODES
    ? {
        kind: "cluster",
        nodes: values.REDIS_CLUSTER_NODES,
        password: values.REDIS_PASSWORD,
        tls: values.REDIS_TLS === "on",
      }
    : values.REDIS_SENTINELS
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
    // A cluster deployment is new (no old data under the bare prefix): its one merchant's
    // keys carry a hash tag like every merchant's, so each script touches one slot.
    keyPrefix:
      target.kind === "cluster"
        ? merchantKeyPrefix(values.REDIS_KEY_PREFIX, DEFAULT_MERCHANT_ID)
        : values.REDIS_KEY_PREFIX,
    sharedKeyPrefix: values.REDIS_KEY_PREFIX,
    durability: values.REDIS_DURABILITY ?? (production ? "auto" : "off"),
    durabilityTimeoutMs: values.REDIS_DURABILITY_TIMEOUT_MS,
  };
}
