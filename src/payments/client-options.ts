/**
 * Options of PaymentClient: what callers may set, the defaults, and the checks that turn a
 * bad configuration into one TypeError at construction rather than odd failures later.
 */
import type { KeyObject } from "node:crypto";
import { type Logger, silentLogger } from "../logger.js";
import { type Metrics, NO_METRICS } from "../metrics/metrics.js";
import type { RateLimiter } from "./rate-limiter.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { loadPrivateKey, loadPublicKey } from "./signature.js";

export interface PaymentClientOptions {
  /** Base URL of the API environment, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `X-API-Key` on every request; never logged. */
  apiKey: string;
  /** Takes a slot before every attempt. Default: none (unlimited). */
  limiter?: RateLimiter;
  /**
   * TCP (and TLS) connection set-up; must be below `requestTimeoutMs`. Default 5 000 ms, or
   * half of `requestTimeoutMs` when that is shorter.
   */
  connectTimeoutMs?: number;
  /** Deadline of one attempt, connection to last byte of the answer. Default 15 000 ms. */
  requestTimeoutMs?: number;
  /** Overrides of DEFAULT_RETRY_POLICY (4 attempts, 250 ms base, 5 s cap, 20 s in all). */
  retry?: Partial<RetryPolicy>;
  /** PEM private key: when set, every request carries `X-Sig` and `X-Sig-Timestamp`. */
  requestSigningKeyPem?: string;
  /** PEM public key: when set, every response must carry a good `X-Sig`. */
  responseVerifyKeyPem?: string;
  /** Default: silentLogger. Each attempt is logged at debug level. */
  logger?: Logger;
  /** Longest wait for one rate-limiter slot before RateLimitedError. Default 60 000 ms. */
  maxRateLimitWaitMs?: number;
  /**
   * Slots of each window that background requests (`{ background: true }`) leave free for
   * interactive ones; the app uses the batch's share (BATCH_RATE_SHARE_PERCENT). Default 0.
   */
  interactiveReserve?: number;
  /** Each attempt (operation, status, duration) and each retry is recorded. Default: none. */
  metrics?: Metrics;
}

export interface ResolvedPaymentClientOptions {
  origin: string;
  /** Path prefix of `baseUrl` without a trailing slash ("" for none). */
  basePath: string;
  apiKey: string;
  limiter: RateLimiter | undefined;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  signingKey: KeyObject | undefined;
  verifyKey: KeyObject | undefined;
  logger: Logger;
  maxRateLimitWaitMs: number;
  interactiveReserve: number;
  metrics: Metrics;
}

function checkWholeMs(problems: string[], name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    problems.push(`${name} must be a whole number of ms ≥ ${min} (got ${value})`);
  }
}

function parseBaseUrl(baseUrl: string, problems: string[]): { origin: string; basePath: string } {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  const http = url?.protocol === "http:" || url?.protocol === "https:";
  if (!url || !http || url.search || url.hash || url.username || url.password) {
    // The URL is not echoed: it may hold credentials.
    problems.push("baseUrl must be an http(s) URL without credentials, query or fragment");
    return { origin: "http://invalid", basePath: "" };
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, "") };
}

function loadKey(
  problems: string[],
  name: string,
  pem: string | undefined,
  load: (pem: string) => KeyObject,
): KeyObject | undefined {
  if (pem === undefined) return undefined;
  try {
    return load(pem);
  } catch {
    problems.push(`${name} is not a readable PEM key`);
    return undefined;
  }
}

/**
 * Fills in the defaults and checks every value; throws one TypeError listing every problem.
 */
export function resolvePaymentClientOptions(
  options: PaymentClientOptions,
): ResolvedPaymentClientOptions {
  const problems: string[] = [];
  const { origin, basePath } = parseBaseUrl(options.baseUrl, problems);
  // Printable ASCII only: anything else is a copy-paste accident or a header injection.
  if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
    problems.push("apiKey must be non-empty printable ASCII without spaces");
  }
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const connectTimeoutMs =
    options.connectTimeoutMs ?? Math.min(5_000, Math.max(1, Math.floor(requestTimeoutMs / 2)));
  const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 60_000;
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  checkWholeMs(problems, "connectTimeoutMs", connectTimeoutMs, 1);
  checkWholeMs(problems, "requestTimeoutMs", requestTimeoutMs, 1);
  // A connect timeout is the one timeout after which a POST may be resent; it must fire first.
  if (connectTimeoutMs >= requestTimeoutMs) {
    problems.push("connectTimeoutMs must be below requestTimeoutMs");
  }
  checkWholeMs(problems, "maxRateLimitWaitMs", maxRateLimitWaitMs, 0);
  const interactiveReserve = options.interactiveReserve ?? 0;
  if (!Number.isSafeInteger(interactiveReserve) || interactiveReserve < 0) {
    problems.push(`interactiveReserve must be a whole number ≥ 0 (got ${interactiveReserve})`);
  }
  if (!Number.isSafeInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
    problems.push(`retry.maxAttempts must be a whole number ≥ 1 (got ${retry.maxAttempts})`);
  }
  checkWholeMs(problems, "retry.baseDelayMs", retry.baseDelayMs, 0);
  checkWholeMs(problems, "retry.maxDelayMs", retry.maxDelayMs, retry.baseDelayMs);
  checkWholeMs(problems, "retry.maxTotalMs", retry.maxTotalMs, 0);
  const signingKey = loadKey(
    problems,
    "requestSigningKeyPem",
    options.requestSigningKeyPem,
    loadPrivateKey,
  );
  const verifyKey = loadKey(
    problems,
    "responseVerifyKeyPem",
    options.responseVerifyKeyPem,
    loadPublicKey,
  );
  if (problems.length > 0) {
    throw new TypeError(`PaymentClient: invalid options:\n  - ${problems.join("\n  - ")}`);
  }
  const logger = options.logger ?? silentLogger;
  return {
    ...{ origin, basePath, apiKey: options.apiKey, limiter: options.limiter, logger },
    ...{ connectTimeoutMs, requestTimeoutMs, maxRateLimitWaitMs, retry, signingKey, verifyKey },
    interactiveReserve,
    metrics: options.metrics ?? NO_METRICS,
  };
}
