/**
 * Where the bot's Redis is: one server named by a URL (`redis://`, or `rediss://` for TLS),
 * or a primary that Redis Sentinel names and renames on a failover. `targetOptions` turns
 * a target into the part of the ioredis options that says where and how to connect;
 * redis.ts adds the fail-fast behaviour, the same for both.
 */
import type { RedisOptions } from "ioredis";
import { redactUrlCredentials } from "../../logger.js";

export interface HostPort {
  host: string;
  port: number;
}

export interface UrlTarget {
  kind: "url";
  /**
   * `redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS, or a Unix socket
   * when the bot and Redis share a host: `unix:///path/redis.sock[?db=N]` (also written
   * `redis+unix://`).
   */
  url: string;
  /** The password when the URL has none (REDIS_PASSWORD). */
  password?: string | undefined;
}

export interface SentinelTarget {
  kind: "sentinel";
  /** Asked in turn for the primary's address; more are learnt from them. */
  sentinels: readonly HostPort[];
  /** The primary's name in the sentinels' configuration (`sentinel monitor <name> …`). */
  name: string;
  /** AUTH on the primary and its replicas. */
  password?: string | undefined;
  /** AUTH on the sentinels. */
  sentinelPassword?: string | undefined;
  /** TLS to the sentinels and to the servers they name. */
  tls: boolean;
}

export interface ClusterTarget {
  kind: "cluster";
  /** Some of the cluster's nodes (REDIS_CLUSTER_NODES): the rest is learnt from CLUSTER SLOTS. */
  nodes: readonly HostPort[];
  /** AUTH on every node. */
  password?: string | undefined;
  /** TLS to every node. */
  tls: boolean;
}

export type RedisTarget = UrlTarget | SentinelTarget | ClusterTarget;

/** `unix:///run/redis.sock?db=2` or `redis+unix://…`: a Unix socket's URL. */
export const UNIX_SOCKET_URL = /^(redis\+)?unix:\/\/(\/[^?#]*)(\?[^#]*)?$/;

/**
 * What ioredis takes for `url`: a socket's path (with its `?db=N`) for a Unix socket URL,
 * the URL itself otherwise.
 */
export function ioredisUrl(url: string): string {
  const socket = UNIX_SOCKET_URL.exec(url);
  return socket ? `${socket[2]}${socket[3] ?? ""}` : url;
}

/** A plain URL as a target. */
export function urlTarget(url: string): UrlTarget {
  return { kind: "url", url };
}

/**
 * The ioredis options that say where `target` is (a URL target's URL itself goes to the
 * constructor beside them). For Sentinel: the client asks the
 * sentinels for the primary on every (re)connection, checks that the server it reached
 * is a primary, and drops its connection as soon as a sentinel announces a failover
 * (`failoverDetector`), rather than waiting for the old primary's socket to fail.
 */
export function targetOptions(target: UrlTarget | SentinelTarget): RedisOptions {
  if (target.kind === "url")
    return target.password === undefined ? {} : { password: target.password };
  return {
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    role: "master",
    password: target.password,
    sentinelPassword: target.sentinelPassword,
    failoverDetector: true,
    // A sentinel that does not answer must not hold up finding the primary.
    sentinelCommandTimeout: 2000,
    ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
  };
}

/** One line for logs and start-up errors, without a password. */
export function describeTarget(target: RedisTarget): string {
  if (target.kind === "url") return redactUrlCredentials(target.url);
  if (target.kind === "cluster") {
    const nodes = target.nodes.map(({ host, port }) => `${host}:${port}`).join(",");
    return `cluster via ${nodes}${target.tls ? " (TLS)" : ""}`;
  }
  const sentinels = target.sentinels.map(({ host, port }) => `${host}:${port}`).join(",");
  return `sentinel ${target.name} via ${sentinels}${target.tls ? " (TLS)" : ""}`;
}
