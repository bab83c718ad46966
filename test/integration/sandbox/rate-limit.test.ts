import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HttpErrorSchema } from "../../../src/payments/schemas.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { SlidingWindowLimiter } from "../../../src/sandbox/rate-limit.js";
import { call } from "./helpers.js";

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 3, apiKeys: ["key-a", "key-b"] });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

describe("Sandbox rate limit", () => {
  it("answers 429 with Retry-After past the limit, across all endpoints", async () => {
    expect((await call(sandbox, "GET", "/availability")).status).toBe(200);
    expect((await call(sandbox, "GET", "/payments/pay_x")).status).toBe(404);
    expect((await call(sandbox, "GET", "/data/userinfo/237670000001")).status).toBe(200);

    const limited = await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(HttpErrorSchema.parse(limited.json)).toMatchObject({
      statusCode: 429,
      details: [{ limitPerMinute: 3, retryAfterSeconds: retryAfter }],
    });
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("counts each API key on its own", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await call(sandbox, "GET", "/availability", { apiKey: "key-a" })).status).toBe(200);
    }
    expect((await call(sandbox, "GET", "/availability", { apiKey: "key-a" })).status).toBe(429);
    expect((await call(sandbox, "GET", "/availability", { apiKey: "key-b" })).status).toBe(200);
  });

  it("does not count requests refused for a bad key, nor limit the admin surface", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await call(sandbox, "GET", "/availability", { apiKey: "wrong" })).status).toBe(401);
      expect((await call(sandbox, "GET", "/_sandbox/state", { apiKey: null })).status).toBe(200);
    }
    expect((await call(sandbox, "GET", "/availability")).status).toBe(200);
  });

  it("starts counting afresh after reset", async () => {
    for (let i = 0; i < 3; i++) await call(sandbox, "GET", "/availability");
    expect((await call(sandbox, "GET", "/availability")).status).toBe(429);
    sandbox.reset();
    expect((await call(sandbox, "GET", "/availability")).status).toBe(200);
  });

  it("has no limit when rateLimitPerMinute is 0", async () => {
    const unlimited = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 150 }, () => call(unlimited, "GET", "/availability")),
      );
      expect(statuses.every((response) => response.status === 200)).toBe(true);
    } finally {
      await unlimited.close();
    }
  });
});

describe("SlidingWindowLimiter", () => {
  it("frees a slot 60 s after the oldest accepted request, not at a minute boundary", () => {
    const limiter = new SlidingWindowLimiter(2);
    expect(limiter.take("k", 1_000)).toBe(0);
    expect(limiter.take("k", 30_000)).toBe(0);
    expect(limiter.take("k", 30_500)).toBe(31);
    expect(limiter.take("k", 60_999)).toBe(1);
    expect(limiter.take("k", 61_000)).toBe(0);
    expect(limiter.take("k", 61_001)).toBe(29);
    expect(limiter.take("k", 90_000)).toBe(0);
  });

  it("does not count refused requests against the window", () => {
    const limiter = new SlidingWindowLimiter(1);
    expect(limiter.take("k", 0)).toBe(0);
    for (let t = 1_000; t < 60_000; t += 1_000) expect(limiter.take("k", t)).toBeGreaterThan(0);
    expect(limiter.take("k", 60_000)).toBe(0);
  });
});
