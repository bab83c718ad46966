import { describe, expect, it } from "vitest";
import {
  AttemptDeadlineError,
  type AttemptFailure,
  backoffMs,
  classifyTransportError,
  DEFAULT_RETRY_POLICY,
  mayHaveTakenEffect,
  nextRetryDelayMs,
  parseRetryAfter,
  type RetryPolicy,
  shouldRetry,
  sleep,
} from "../../../src/payments/retry.js";

function codeError(code: string, syscall?: string): Error {
  return Object.assign(new Error(code), { code, ...(syscall ? { syscall } : {}) });
}

describe("shouldRetry", () => {
  const cases: Array<[string, AttemptFailure, boolean, boolean]> = [
    // description, failure, GET retried, POST retried
    ["a connection that was never made", { kind: "not-sent" }, true, true],
    ["a 429 refusal", { kind: "status", statusCode: 429 }, true, true],
    ["a 500", { kind: "status", statusCode: 500 }, true, false],
    ["a 502", { kind: "status", statusCode: 502 }, true, false],
    ["a 503", { kind: "status", statusCode: 503 }, true, false],
    ["a timeout after the request left", { kind: "timeout" }, true, false],
    ["a connection broken mid-request", { kind: "network" }, true, false],
    ["a 400", { kind: "status", statusCode: 400 }, false, false],
    ["a 401", { kind: "status", statusCode: 401 }, false, false],
    ["a 403", { kind: "status", statusCode: 403 }, false, false],
    ["a 404", { kind: "status", statusCode: 404 }, false, false],
    ["a 2xx with an unreadable body", { kind: "invalid-response" }, false, false],
    ["a bad response signature", { kind: "bad-signature" }, false, false],
  ];

  it.each(cases)("after %s: GET %s, POST %s", (_what, failure, get, post) => {
    expect(shouldRetry("GET", failure)).toBe(get);
    expect(shouldRetry("POST", failure)).toBe(post);
  });
});

describe("mayHaveTakenEffect", () => {
  const cases: Array<[AttemptFailure, boolean]> = [
    [{ kind: "not-sent" }, false],
    [{ kind: "status", statusCode: 400 }, false],
    [{ kind: "status", statusCode: 429 }, false],
    [{ kind: "status", statusCode: 404 }, false],
    [{ kind: "status", statusCode: 500 }, true],
    [{ kind: "status", statusCode: 302 }, true],
    [{ kind: "timeout" }, true],
    [{ kind: "network" }, true],
    [{ kind: "invalid-response" }, true],
    [{ kind: "bad-signature" }, true],
  ];

  it.each(cases)("says %j → %s", (failure, expected) => {
    expect(mayHaveTakenEffect(failure)).toBe(expected);
  });
});

describe("classifyTransportError", () => {
  const cases: Array<[string, unknown, AttemptFailure["kind"]]> = [
    ["connection refused", codeError("ECONNREFUSED", "connect"), "not-sent"],
    ["DNS: no such host", codeError("ENOTFOUND", "getaddrinfo"), "not-sent"],
    ["DNS: try again", codeError("EAI_AGAIN", "getaddrinfo"), "not-sent"],
    ["undici connect timeout", codeError("UND_ERR_CONNECT_TIMEOUT"), "not-sent"],
    ["host unreachable on connect", codeError("EHOSTUNREACH", "connect"), "not-sent"],
    ["host unreachable on write", codeError("EHOSTUNREACH", "write"), "network"],
    ["undici headers timeout", codeError("UND_ERR_HEADERS_TIMEOUT"), "timeout"],
    ["undici body timeout", codeError("UND_ERR_BODY_TIMEOUT"), "timeout"],
    ["the attempt's deadline", new AttemptDeadlineError(300), "timeout"],
    ["connection reset", codeError("ECONNRESET", "read"), "network"],
    ["undici socket closed", codeError("UND_ERR_SOCKET"), "network"],
    ["a broken pipe", codeError("EPIPE", "write"), "network"],
    ["an error without a code", new Error("boom"), "network"],
    ["something that is not an error", "boom", "network"],
    [
      "every address refused (happy eyeballs)",
      new AggregateError([
        codeError("ECONNREFUSED", "connect"),
        codeError("ECONNREFUSED", "connect"),
      ]),
      "not-sent",
    ],
    [
      "one address refused, one reset",
      new AggregateError([codeError("ECONNREFUSED", "connect"), codeError("ECONNRESET", "read")]),
      "network",
    ],
  ];

  it.each(cases)("classifies %s", (_what, error, kind) => {
    expect(classifyTransportError(error).kind).toBe(kind);
  });
});

describe("backoffMs", () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [12, 1_000],
  ])("keeps retry %i within [0, %i) ms", (attempt, ceilingMs) => {
    expect(backoffMs(attempt, policy, () => 0)).toBe(0);
    expect(backoffMs(attempt, policy, () => 0.5)).toBe(Math.floor(ceilingMs / 2));
    const top = backoffMs(attempt, policy, () => 0.999_999);
    expect(top).toBeLessThan(ceilingMs);
    expect(top).toBeGreaterThanOrEqual(ceilingMs - 1);
  });

  it("spreads its draws over the whole range with the real random source", () => {
    const draws = Array.from({ length: 2_000 }, () => backoffMs(3, policy));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(400);
    // Full jitter: both the bottom and the top quarter of the range are used.
    expect(draws.some((delay) => delay < 100)).toBe(true);
    expect(draws.some((delay) => delay >= 300)).toBe(true);
  });
});

describe("nextRetryDelayMs", () => {
  const policy: RetryPolicy = {
    maxAttempts: 3,
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    maxTotalMs: 2_000,
  };
  const half = () => 0.5;

  it("waits the jittered backoff while attempts and time are left", () => {
    expect(nextRetryDelayMs({ attempt: 1, spentMs: 0 }, policy, half)).toBe(50);
    expect(nextRetryDelayMs({ attempt: 2, spentMs: 500 }, policy, half)).toBe(100);
  });

  it("gives up once maxAttempts attempts were made", () => {
    expect(nextRetryDelayMs({ attempt: 3, spentMs: 0 }, policy, half)).toBeUndefined();
  });

  it("waits exactly Retry-After instead of the backoff", () => {
    expect(nextRetryDelayMs({ attempt: 1, spentMs: 0, retryAfterMs: 1_500 }, policy, half)).toBe(
      1_500,
    );
  });

  it("gives up when Retry-After would end past the total budget", () => {
    expect(
      nextRetryDelayMs({ attempt: 1, spentMs: 600, retryAfterMs: 1_500 }, policy, half),
    ).toBeUndefined();
  });

  it("gives up when the backoff would end past the total budget", () => {
    expect(nextRetryDelayMs({ attempt: 2, spentMs: 1_950 }, policy, half)).toBeUndefined();
  });

  it("has defaults of 4 attempts, 250 ms base, 5 s cap and 20 s in all", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 4,
      baseDelayMs: 250,
      maxDelayMs: 5_000,
      maxTotalMs: 20_000,
    });
  });
});

describe("parseRetryAfter", () => {
  const nowMs = Date.parse("2024-05-01T12:00:00Z");

  it.each([
    ["120", 120_000],
    ["0", 0],
    [" 3 ", 3_000],
    ["Wed, 01 May 2024 12:00:30 GMT", 30_000],
    ["Wednesday, 01-May-24 12:00:30 GMT", 30_000],
    ["Wed May  1 12:00:30 2024", 30_000],
    ["Wed, 01 May 2024 11:00:00 GMT", 0],
  ])("reads %j as %i ms", (header, expected) => {
    expect(parseRetryAfter(header, nowMs)).toBe(expected);
  });

  it("reads the first value of a repeated header", () => {
    expect(parseRetryAfter(["2", "9"], nowMs)).toBe(2_000);
  });

  it.each([
    undefined,
    "",
    "soon",
    "-5",
    "1.5",
    "12abc",
    "2024-05-01T12:00:30Z",
    "Wed, 99 May 2024 12:00:30 GMT",
  ])("returns undefined for %j", (header) => {
    expect(parseRetryAfter(header, nowMs)).toBeUndefined();
  });
});

describe("sleep", () => {
  it("resolves after the delay", async () => {
    await expect(sleep(5)).resolves.toBeUndefined();
  });

  it("rejects with the abort reason as soon as its signal aborts", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const sleeping = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });

  it("rejects at once when the signal has already aborted", async () => {
    const reason = new Error("already");
    await expect(sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
