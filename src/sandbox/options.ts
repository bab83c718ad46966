/**
 * Options of the local sandbox, their defaults, and the constants of the merchant it
 * pretends to be. Options are resolved once, at start, into `ResolvedSandboxOptions`.
 */
import type { Logger } from "../logger.js";
import { silentLogger } from "../logger.js";

export const DEFAULT_SANDBOX_API_KEY = "sandbox-test-key";
export const DEFAULT_SANDBOX_HOST = "127.0.0.1";
/** The spec's sandbox limit (section 8). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 100;
export const DEFAULT_SETTLE_DELAY_MS = 3000;
const DEFAULT_INITIAL_BALANCE_XAF = 10_000_000;
/** The real service is reported to retry about every minute for 15 minutes until a 2xx. */
export const DEFAULT_CALLBACK_RETRY_DELAYS_MS: readonly number[] = Array.from(
  { length: 15 },
  () => 60_000,
);
const DEFAULT_CALLBACK_TIMEOUT_MS = 5000;

/** The merchant every sandbox payment belongs to. */
export const SANDBOX_MERCHANT_ID = 1001;
export const SANDBOX_CURRENCY = "XAF";
/** Request bodies above this size get 413. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface SandboxOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port to listen on. Default 0: a free port chosen by the system. */
  port?: number;
  /** Accepted `X-API-Key` values. Default `[DEFAULT_SANDBOX_API_KEY]`, or every key of `accounts`. */
  apiKeys?: string[];
  /**
   * Keys grouped by merchant account, as the real API keeps them: a payment made with a key
   * of one account is not found with a key of another (a rotated key's old and new values
   * are one account). Default: every key is of one account.
   */
  accounts?: string[][];
  /** Sliding 60 s window per API key over all API endpoints. Default 100; 0 = no limit. */
  rateLimitPerMinute?: number;
  /** How long a payment stays `pending` before its scripted final status. Default 3000. */
  settleDelayMs?: number;
  /** Final statuses are POSTed here when set. */
  callbackUrl?: string;
  /** Waits between callback attempts after a failed one. Default every 60 s for 15 min. */
  callbackRetryDelaysMs?: number[];
  /** Deadline of one callback attempt. Default 5000. */
  callbackTimeoutMs?: number;
  /** The merchant balance in XAF at start and after `reset()`. Default 10 000 000. */
  initialBalance?: number;
  /** Sign every API response with `X-Sig`. Default true. */
  signResponses?: boolean;
  /**
   * How far the sandbox's clock is from the machine's, in ms, for the timestamps it signs
   * (answers and callbacks): a service whose clock is off. Default 0.
   */
  clockSkewMs?: number;
  /** When set, API requests must carry an `X-Sig` this public key verifies, else 401. */
  requestVerifyKeyPem?: string;
  /**
   * The sandbox's RSA private key (PEM). Default: one 2048-bit key generated per process
   * and shared by every sandbox in it (generating one costs ~100 ms per start).
   */
  privateKeyPem?: string;
  /** Recorded requests kept in memory; the oldest are dropped past it. Default 100 000. */
  maxRecordedRequests?: number;
  /** Default `silentLogger`. */
  logger?: Logger;
}

export interface ResolvedSandboxOptions {
  host: string;
  port: number;
  apiKeys: readonly string[];
  /** The account of each key of `accounts`; a key not there is of the default account. */
  accountOf: ReadonlyMap<string, string>;
  rateLimitPerMinute: number;
  settleDelayMs: number;
  callbackUrl: string | undefined;
  callbackRetryDelaysMs: readonly number[];
  callbackTimeoutMs: number;
  initialBalance: number;
  signResponses: boolean;
  clockSkewMs: number;
  requestVerifyKeyPem: string | undefined;
  privateKeyPem: string | undefined;
  maxRecordedRequests: number;
  logger: Logger;
}

/** `value`, or a RangeError naming `name` when it is not a finite number. */
function finiteNumber(name: string, value: number): number {
  if (!Number.isFinite(value))
    throw new RangeError(`${name} must be a finite number, got ${value}`);
  return value;
}

/** `value`, or a RangeError naming `name` when it is not a finite number ≥ 0. */
export function requireNonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  return requireNonNegative(`sandbox option ${name}`, value);
}

/** Fills in defaults and refuses values that would make the sandbox misbehave. */
export function resolveSandboxOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  const apiKeys = options.apiKeys ?? options.accounts?.flat() ?? [DEFAULT_SANDBOX_API_KEY];
  const accountOf = new Map<string, string>();
  options.accounts?.forEach((keys, index) => {
    for (const key of keys) accountOf.set(key, String(index));
  });
  if (apiKeys.length === 0 || apiKeys.some((key) => key === "")) {
    throw new RangeError("sandbox option apiKeys must hold at least one non-empty key");
  }
  const callbackRetryDelaysMs = options.callbackRetryDelaysMs ?? DEFAULT_CALLBACK_RETRY_DELAYS_MS;
  for (const delay of callbackRetryDelaysMs) nonNegative("callbackRetryDelaysMs", delay);
  if (options.callbackUrl !== undefined) new URL(options.callbackUrl);
  return {
    host: options.host ?? DEFAULT_SANDBOX_HOST,
    port: nonNegative("port", options.port ?? 0),
    apiKeys,
    accountOf,
    rateLimitPerMinute: nonNegative(
      "rateLimitPerMinute",
      options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    ),
    settleDelayMs: nonNegative("settleDelayMs", options.settleDelayMs ?? DEFAULT_SETTLE_DELAY_MS),
    callbackUrl: options.callbackUrl,
    callbackRetryDelaysMs,
    callbackTimeoutMs: nonNegative(
      "callbackTimeoutMs",
      options.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS,
    ),
    initialBalance: nonNegative(
      "initialBalance",
      options.initialBalance ?? DEFAULT_INITIAL_BALANCE_XAF,
    ),
    signResponses: options.signResponses ?? true,
    clockSkewMs: finiteNumber("clockSkewMs", options.clockSkewMs ?? 0),
    requestVerifyKeyPem: options.requestVerifyKeyPem,
    privateKeyPem: options.privateKeyPem,
    maxRecordedRequests: nonNegative("maxRecordedRequests", options.maxRecordedRequests ?? 100_000),
    logger: options.logger ?? silentLogger,
  };
}
