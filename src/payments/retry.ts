/**
 * When to retry a Payment API call, and how long to wait: a few pure functions so the
 * rules can be read (and tested) apart from the HTTP code in client.ts.
 *
 * The rule that matters: POST /collect and /disburse have no idempotency key, so they are
 * sent again only when it is certain the first one never reached the API (the connection
 * was never made, or the API answered 429 and so refused it). undici's own RetryHandler
 * leaves POST out for the same reason.
 */

export interface RetryPolicy {
  /** Attempts in all, the first one included (1 = never retry). */
  maxAttempts: number;
  /** Ceiling of the first backoff; doubles on every retry. */
  baseDelayMs: number;
  /** Cap on one backoff. */
  maxDelayMs: number;
  /**
   * No retry is scheduled that would start later than this after the call began (time spent
   * waiting for the client-side rate limiter is not counted; it has its own bound).
   */
  maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxTotalMs: 20_000,
});

export type RetryMethod = "GET" | "POST";

/** Why one attempt failed, as far as retrying is concerned. */
export type AttemptFailure =
  /** The connection was never made (refused, DNS failure, connect timeout): nothing was sent. */
  | { kind: "not-sent" }
  /** No complete answer in time, after the request may have left. */
  | { kind: "timeout" }
  /** The connection broke (reset, closed, socket error) after it may have carried the request. */
  | { kind: "network" }
  /** The API answered with a non-2xx status. */
  | { kind: "status"; statusCode: number }
  /** A 2xx whose body is not what the spec promises. */
  | { kind: "invalid-response" }
  /** A response whose `X-Sig` is missing or wrong (only when verification is on). */
  | { kind: "bad-signature" };

/**
 * Whether the failed attempt may be repeated. GETs change nothing, so they are retried on
 * anything transient (no connection, timeout, broken connection, 429, 5xx). POSTs are
 * retried only when the API certainly did not act: no connection was made, or it said 429.
 * A bad signature or an unreadable 2xx is never retried: the same server would say it again.
 */
export function shouldRetry(method: RetryMethod, failure: AttemptFailure): boolean {
  switch (failure.kind) {
    case "not-sent":
      return true;
    case "status":
      return failure.statusCode === 429 || (method === "GET" && failure.statusCode >= 500);
    case "timeout":
    case "network":
      return method === "GET";
    case "invalid-response":
    case "bad-signature":
      return false;
  }
}

/**
 * Whether a POST that failed this way may have been carried out by the API. Only "never
 * sent" and a 4xx answer (a refusal, 429 included) are certain; a 5xx may come from a proxy
 * after the API acted, and a 1xx/3xx is not a refusal the spec knows.
 */
export function mayHaveTakenEffect(failure: AttemptFailure): boolean {
  if (failure.kind === "not-sent") return false;
  if (failure.kind === "status") return failure.statusCode < 400 || failure.statusCode >= 500;
  return true;
}

/** What an attempt fails with once its deadline passes (exchange.ts), told from undici's errors. */
export class AttemptDeadlineError extends Error {
  readonly code = "PAYMENT_ATTEMPT_DEADLINE";
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = "AttemptDeadlineError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Error codes that prove no byte of the request left: the TCP (or TLS) connection was never
 * established. undici's connect timeout (UND_ERR_CONNECT_TIMEOUT) fires only before the
 * socket's `connect`/`secureConnect`, so it belongs here; its headers and body timeouts
 * fire after the request was written, so they do not.
 */
const NEVER_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  // Dispatching on a closed undici client fails before anything is queued.
  "UND_ERR_CLOSED",
]);

/** Routing errors are "never connected" only when the `connect` syscall raised them. */
const UNREACHABLE_CODES = new Set(["ENETUNREACH", "EHOSTUNREACH"]);

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "PAYMENT_ATTEMPT_DEADLINE",
]);

function stringProperty(value: unknown, name: string): string | undefined {
  if (typeof value !== "object" || value === null || !(name in value)) return undefined;
  const property: unknown = Reflect.get(value, name);
  return typeof property === "string" ? property : undefined;
}

function neverConnected(error: unknown): boolean {
  // Node's happy-eyeballs connect (autoSelectFamily) reports one AggregateError for all
  // the addresses it tried; nothing was sent only if every one of them failed to connect.
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.every(neverConnected);
  }
  const code = stringProperty(error, "code");
  if (code === undefined) return false;
  if (NEVER_CONNECTED_CODES.has(code)) return true;
  return UNREACHABLE_CODES.has(code) && stringProperty(error, "syscall") === "connect";
}

/**
 * Sorts an error thrown by undici (or by the attempt's deadline) into "not-sent",
 * "timeout" or "network". Anything unrecognised is "network": when in doubt, assume the
 * request may have been sent.
 */
export function classifyTransportError(error: unknown): AttemptFailure {
  if (neverConnected(error)) return { kind: "not-sent" };
  const code = stringProperty(error, "code");
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: "timeout" };
  return { kind: "network" };
}

/**
 * Backoff before retry number `attempt` (1 for the first retry): "full jitter", a uniform
 * draw in [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))), so many clients that failed
 * together do not come back together. `random` returns a number in [0, 1).
 */
export function backoffMs(
  attempt: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, attempt - 1);
  const ceilingMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return Math.floor(ceilingMs * random());
}

export interface RetryState {
  /** Attempts made so far (1 after the first one failed). */
  attempt: number;
  /** Time spent on this call so far, rate-limiter waits excluded. */
  spentMs: number;
  /** From the failed answer's `Retry-After`, when it had one. */
  retryAfterMs?: number | undefined;
}

/**
 * How long to wait before the next attempt, or `undefined` to give up: when the attempts
 * are used up, or when the wait (the server's `Retry-After` if it sent one, else the
 * jittered backoff) would end past `maxTotalMs`. A `Retry-After` longer than what is left
 * of the budget is not shortened: the server would only refuse again.
 */
export function nextRetryDelayMs(
  state: RetryState,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (state.attempt >= policy.maxAttempts) return undefined;
  const delayMs = state.retryAfterMs ?? backoffMs(state.attempt, policy, random);
  if (state.spentMs + delayMs > policy.maxTotalMs) return undefined;
  return delayMs;
}

// RFC 9110 HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * `Retry-After` as milliseconds from `nowMs`: delay-seconds (`"120"`) or an HTTP-date
 * (a date in the past gives 0). `undefined` when the header is absent or unreadable.
 */
export function parseRetryAfter(
  headerValue: string | readonly string[] | undefined,
  nowMs: number,
): number | undefined {
  const raw = typeof headerValue === "string" ? headerValue : headerValue?.[0];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  // asctime has no zone; RFC 9110 says it is GMT.
  const dateMs = Date.parse(value.endsWith("GMT") ? value : `${value} GMT`);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}

/**
 * Resolves after `ms` milliseconds, or rejects with `signal.reason` as soon as `signal`
 * aborts (at once if it already has). The timer is cleared either way.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
