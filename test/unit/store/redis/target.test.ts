import { describe, expect, it } from "vitest";
import {
  describeTarget,
  type SentinelTarget,
  targetOptions,
} from "../../../../src/store/redis/target.js";

const SENTINEL: SentinelTarget = {
  kind: "sentinel",
  sentinels: [
    { host: "10.0.0.5", port: 26379 },
    { host: "10.0.0.6", port: 26379 },
  ],
  name: "payouts",
  password: "data-secret",
  sentinelPassword: "sentinel-secret",
  tls: false,
};

describe("targetOptions", () => {
  it("asks the sentinels for a primary, with both passwords, and follows a failover at once", () => {
    expect(targetOptions(SENTINEL)).toMatchObject({
      sentinels: [
        { host: "10.0.0.5", port: 26379 },
        { host: "10.0.0.6", port: 26379 },
      ],
      name: "payouts",
      role: "master",
      password: "data-secret",
      sentinelPassword: "sentinel-secret",
      failoverDetector: true,
    });
    expect(targetOptions(SENTINEL)).not.toHaveProperty("tls");
  });

  it("speaks TLS to the sentinels and to the servers they name when asked", () => {
    expect(targetOptions({ ...SENTINEL, tls: true })).toMatchObject({
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
    });
  });

  it("leaves a URL's own settings alone and adds only a password given apart", () => {
    expect(targetOptions({ kind: "url", url: "rediss://127.0.0.1:6380" })).toEqual({});
    expect(targetOptions({ kind: "url", url: "redis://127.0.0.1", password: "p" })).toEqual({
      password: "p",
    });
  });
});

describe("describeTarget", () => {
  it("names where Redis is without any password", () => {
    expect(describeTarget({ kind: "url", url: "rediss://:secret@cache:6380/1" })).not.toContain(
      "secret",
    );
    expect(describeTarget({ ...SENTINEL, tls: true })).toBe(
      "sentinel payouts via 10.0.0.5:26379,10.0.0.6:26379 (TLS)",
    );
  });
});
