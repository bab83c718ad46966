import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";
import { parseSentinels } from "../../../src/config/redis.js";

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("Redis configuration", () => {
  it("connects to REDIS_URL, with REDIS_PASSWORD when the URL has none", () => {
    const config = loadConfig(
      { REDIS_URL: "rediss://cache.example.com:6380", REDIS_PASSWORD: " s3cret " },
      "demo",
    );
    expect(config.redis.target).toEqual({
      kind: "url",
      url: "rediss://cache.example.com:6380",
      password: "s3cret",
    });
  });

  it("finds the primary through the sentinels when REDIS_SENTINELS is set", () => {
    const config = loadConfig(
      { REDIS_SENTINELS: " 10.0.0.5:26379, sentinel-b.internal:26380 ,[::1]:26381," },
      "demo",
    );
    expect(config.redis.target).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "10.0.0.5", port: 26379 },
        { host: "sentinel-b.internal", port: 26380 },
        { host: "::1", port: 26381 },
      ],
      name: "mymaster",
      tls: false,
    });
  });

  it("reads the primary's name, both passwords and TLS in Sentinel mode", () => {
    const config = loadConfig(
      {
        REDIS_SENTINELS: "10.0.0.5:26379",
        REDIS_SENTINEL_NAME: "payouts",
        REDIS_PASSWORD: "data-secret",
        REDIS_SENTINEL_PASSWORD: "sentinel-secret",
        REDIS_TLS: "on",
        // compose.yaml sets a plain one: it names nothing here, and is no problem.
        REDIS_URL: "redis://redis:6379",
      },
      "demo",
    );
    expect(config.redis.target).toEqual({
      kind: "sentinel",
      sentinels: [{ host: "10.0.0.5", port: 26379 }],
      name: "payouts",
      password: "data-secret",
      sentinelPassword: "sentinel-secret",
      tls: true,
    });
  });

  it("lists every bad sentinel address, each once", () => {
    expect(
      parseSentinels("10.0.0.5:26379,10.0.0.5,host:0,host:70000,a b:1,10.0.0.5:26379"),
    ).toEqual({
      sentinels: [{ host: "10.0.0.5", port: 26379 }],
      problems: [
        '"10.0.0.5" is not host:port (e.g. 10.0.0.5:26379 or [::1]:26379)',
        '"host:0" is not host:port (e.g. 10.0.0.5:26379 or [::1]:26379)',
        '"host:70000" is not host:port (e.g. 10.0.0.5:26379 or [::1]:26379)',
        '"a b:1" is not host:port (e.g. 10.0.0.5:26379 or [::1]:26379)',
        '"10.0.0.5:26379" is listed twice',
      ],
    });
    expect(problemsOf({ REDIS_SENTINELS: "10.0.0.5" })).toEqual([
      expect.stringMatching(/^REDIS_SENTINELS: "10.0.0.5" is not host:port/),
    ]);
    expect(problemsOf({ REDIS_SENTINELS: " , " })).toEqual([
      expect.stringMatching(/^REDIS_SENTINELS: lists no sentinel/),
    ]);
  });

  it.each([
    ["REDIS_SENTINEL_NAME", "payouts", "only used with REDIS_SENTINELS"],
    ["REDIS_SENTINEL_PASSWORD", "secret", "only used with REDIS_SENTINELS"],
    ["REDIS_TLS", "on", "with REDIS_URL write rediss://"],
  ])("refuses %s without REDIS_SENTINELS", (name, value, says) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(problems[0]).toContain(says);
  });

  it("refuses two passwords for one server", () => {
    expect(problemsOf({ REDIS_URL: "redis://:one@127.0.0.1:6379", REDIS_PASSWORD: "two" })).toEqual(
      ["REDIS_PASSWORD: REDIS_URL has a password too; keep one of them"],
    );
  });

  it.each([
    ["a password", "redis://:secret@127.0.0.1:6379"],
    ["a database", "redis://127.0.0.1:6379/2"],
    ["TLS", "rediss://127.0.0.1:6379"],
  ])("refuses a REDIS_URL with %s beside REDIS_SENTINELS (it would not apply)", (_what, url) => {
    const problems = problemsOf({ REDIS_URL: url, REDIS_SENTINELS: "10.0.0.5:26379" });
    expect(problems).toEqual([expect.stringMatching(/^REDIS_URL: not used with REDIS_SENTINELS/)]);
  });

  it("reports bad Sentinel values together with the rest", () => {
    const problems = problemsOf({
      REDIS_SENTINELS: "nope",
      REDIS_SENTINEL_NAME: "two words",
      REDIS_TLS: "yes",
      HTTP_PORT: "abc",
    });
    expect(problems.map((problem) => problem.split(":")[0]).sort()).toEqual([
      "HTTP_PORT",
      "REDIS_SENTINELS",
      "REDIS_SENTINEL_NAME",
      "REDIS_TLS",
    ]);
  });

  it("uses a Redis Cluster with REDIS_CLUSTER_NODES, its password and TLS, under a hash-tagged prefix", () => {
    const config = loadConfig(
      {
        REDIS_CLUSTER_NODES: "10.0.0.5:6379, redis-b.internal:6380,[::1]:6381",
        REDIS_PASSWORD: "data-secret",
        REDIS_TLS: "on",
        REDIS_KEY_PREFIX: "bot:",
      },
      "demo",
    );
    expect(config.redis.target).toEqual({
      kind: "cluster",
      nodes: [
        { host: "10.0.0.5", port: 6379 },
        { host: "redis-b.internal", port: 6380 },
        { host: "::1", port: 6381 },
      ],
      password: "data-secret",
      tls: true,
    });
    // The environment's one merchant: its keys share one slot, as every merchant's do.
    expect(config.redis.keyPrefix).toBe("bot:{m:default}:");
    expect(config.redis.sharedKeyPrefix).toBe("bot:");
  });

  it("keeps the bare prefix for one Redis (old data read as before)", () => {
    const config = loadConfig({ REDIS_KEY_PREFIX: "bot:" }, "demo");
    expect(config.redis.keyPrefix).toBe("bot:");
    expect(config.redis.sharedKeyPrefix).toBe("bot:");
  });

  it.each([
    ["REDIS_URL", "redis://127.0.0.1:6379", "REDIS_CLUSTER_NODES, REDIS_URL: both name a Redis"],
    [
      "REDIS_SENTINELS",
      "10.0.0.5:26379",
      "REDIS_CLUSTER_NODES, REDIS_SENTINELS: a cluster has no sentinels",
    ],
    [
      "REDIS_SENTINEL_NAME",
      "payouts",
      "REDIS_CLUSTER_NODES, REDIS_SENTINEL_NAME: a cluster has no sentinels",
    ],
  ])("refuses REDIS_CLUSTER_NODES beside %s, naming both", (name, value, says) => {
    const problems = problemsOf({ REDIS_CLUSTER_NODES: "10.0.0.5:6379", [name]: value });
    expect(problems).toEqual([expect.stringContaining(says)]);
  });

  it("lists every bad cluster node address", () => {
    expect(problemsOf({ REDIS_CLUSTER_NODES: "10.0.0.5,10.0.0.6:6379,10.0.0.6:6379" })).toEqual([
      'REDIS_CLUSTER_NODES: "10.0.0.5" is not host:port (e.g. 10.0.0.5:6379 or [::1]:6379)',
      'REDIS_CLUSTER_NODES: "10.0.0.6:6379" is listed twice',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: " , " })).toEqual([
      expect.stringMatching(/^REDIS_CLUSTER_NODES: lists no node/),
    ]);
  });

  it("reads the cluster's password from REDIS_PASSWORD_FILE", () => {
    const dir = mkdtempSync(join(tmpdir(), "cluster-secret-"));
    try {
      const file = join(dir, "password");
      writeFileSync(file, "from-file\n");
      const config = loadConfig(
        { REDIS_CLUSTER_NODES: "10.0.0.5:6379", REDIS_PASSWORD_FILE: file },
        "demo",
      );
      expect(config.redis.target).toMatchObject({ kind: "cluster", password: "from-file" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
