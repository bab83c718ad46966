/**
 * Background requests (callback re-reads, status polls, availability checks) leave the
 * client's interactive reserve of the shared window free: with background work holding its
 * whole share, a person's request is still granted a slot within the window; what people
 * take does not shrink background work's share, but background work always leaves a third
 * of the reserve free (payments/rate-limiter.ts, grantLimits). The limiter is
 * the real one (Redis), the API the project's sandbox over HTTP.
 */
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PaymentClient } from "../../../src/payments/client.js";
import { RateLimitedError } from "../../../src/payments/errors.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { RedisRateLimiter } from "../../../src/store/redis/rate-limiter.js";
import { dropPrefix, testPrefix, testRedis } from "../../support/redis.js";

const AVAILABILITY = { method: "GET", path: "/availability" } as const;
/** Grants per window; the window is long enough that none leaves it during a test. */
const LIMIT = 6;
const RESERVE = 2;

describe("the interactive reserve of the rate limit", () => {
  let redis: Redis;
  let sandbox: SandboxHandle;
  let prefix: string;
  let client: PaymentClient | undefined;

  beforeAll(async () => {
    redis = testRedis();
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
  });

  afterEach(async () => {
    await client?.close();
    await dropPrefix(redis, prefix);
  });

  afterAll(async () => {
    await sandbox.close();
    await redis.quit();
  });

  /** A client on a fresh shared window; a slot not free now is refused at once. */
  function clientWith(interactiveReserve: number): PaymentClient {
    prefix = testPrefix("reserve");
    const limiter = new RedisRateLimiter({
      redis,
      key: `${prefix}payment-api`,
      limit: LIMIT,
      windowMs: 60_000,
    });
    client = new PaymentClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.apiKey,
      limiter,
      maxRateLimitWaitMs: 0,
      interactiveReserve,
    });
    return client;
  }

  async function background(payments: PaymentClient, count: number) {
    const before = sandbox.countRequests(AVAILABILITY);
    const answers = await Promise.allSettled(
      Array.from({ length: count }, () => payments.getAvailability({ background: true })),
    );
    const refused = answers.filter(
      (answer) => answer.status === "rejected" && answer.reason instanceof RateLimitedError,
    );
    return { sent: sandbox.countRequests(AVAILABILITY) - before, refused: refused.length };
  }

  it("grants a person a slot while background work holds its whole share", async () => {
    const payments = clientWith(RESERVE);
    // Background work asks for more than the window holds: it gets its share, no more.
    expect(await background(payments, LIMIT + 2)).toEqual({ sent: LIMIT - RESERVE, refused: 4 });
    // People still get the reserve, at once: two interactive requests reach the API.
    await expect(payments.getAvailability()).resolves.toEqual(expect.any(Array));
    await expect(payments.getAvailability()).resolves.toEqual(expect.any(Array));
    // The window is now full for everyone, and the API never saw more than the limit.
    await expect(payments.getAvailability()).rejects.toBeInstanceOf(RateLimitedError);
    expect(await background(payments, 1)).toEqual({ sent: 0, refused: 1 });
  });

  it("does not shrink background work's share by what people took first", async () => {
    const payments = clientWith(RESERVE);
    await expect(payments.getAvailability()).resolves.toEqual(expect.any(Array));
    // Background work still gets its whole share: LIMIT − RESERVE.
    expect(await background(payments, LIMIT)).toEqual({ sent: LIMIT - RESERVE, refused: 2 });
    // The window's last slot is people's: then it is full for everyone.
    await expect(payments.getAvailability()).resolves.toEqual(expect.any(Array));
    await expect(payments.getAvailability()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it("keeps a third of the reserve free at every moment, whatever people took", async () => {
    const payments = clientWith(RESERVE);
    for (let n = 0; n < 3; n++) {
      await expect(payments.getAvailability()).resolves.toEqual(expect.any(Array));
    }
    // ⌈RESERVE / 3⌉ = 1 slot stays free: background work takes 2 of the 3 left, not 3.
    expect(await background(payments, 3)).toEqual({ sent: 2, refused: 1 });
    await expect(payments.getAvailability()).resolves.toEqual(expect.any(Array));
  });

  it("without a reserve, background work takes the whole window and a person waits", async () => {
    const payments = clientWith(0);
    expect(await background(payments, LIMIT + 2)).toEqual({ sent: LIMIT, refused: 2 });
    await expect(payments.getAvailability()).rejects.toBeInstanceOf(RateLimitedError);
  });
});
