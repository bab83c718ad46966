/**
 * The Payment API client (shared/payment-api-spec.md) on an undici Pool. Every attempt has a
 * deadline and first takes a slot from the rate limiter; calls are retried only as retry.ts
 * allows: GETs on anything transient, POST /collect and /disburse only when the API certainly
 * did not act. A POST whose fate we cannot know throws OutcomeUnknownError.
 */
import type { KeyObject } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Pool } from "undici";
import type { z } from "zod";
import { type Logger, maskPhone, silentLogger } from "../logger.js";
import {
  InvalidResponseError,
  LimiterUnavailableError,
  OutcomeUnknownError,
  PaymentApiError,
  type PaymentClientError,
  PaymentNetworkError,
  type PaymentOperation,
  PaymentTimeoutError,
  RateLimitedError,
  SignatureError,
} from "./errors.js";
import type { RateLimiter } from "./rate-limiter.js";
import {
  AttemptDeadlineError,
  type AttemptFailure,
  classifyTransportError,
  DEFAULT_RETRY_POLICY,
  mayHaveTakenEffect,
  nextRetryDelayMs,
  parseRetryAfter,
  type RetryMethod,
  type RetryPolicy,
  shouldRetry,
  sleep,
} from "./retry.js";
import {
  type AvailabilityEntry,
  AvailabilitySchema,
  HttpErrorSchema,
  type Payment,
  type PaymentRequest,
  PaymentRequestSchema,
  PaymentSchema,
  type UserInfo,
  UserInfoSchema,
} from "./schemas.js";
import {
  headerValue,
  loadPrivateKey,
  loadPublicKey,
  SIGNATURE_HEADER,
  signParts,
  TIMESTAMP_HEADER,
  verifyParts,
} from "./signature.js";

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
}

function checkWholeMs(problems: string[], name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    problems.push(`${name} must be a whole number of ms ≥ ${min} (got ${value})`);
  }
}

function parseBaseUrl(baseUrl: string, problems: string[]): { origin: string; basePath: string } {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  const bad = !url || !["http:", "https:"].includes(url.protocol) || url.search || url.hash;
  if (!url || bad || url.username || url.password) {
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
  };
}

interface Call<T> {
  operation: PaymentOperation;
  method: RetryMethod;
  /** Full path as sent, base path included, segments already encoded. */
  path: string;
  body: string | undefined;
  schema: z.ZodType<T>;
}

interface RawResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  text: string;
}

type AttemptOutcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      failure: AttemptFailure;
      error: PaymentClientError;
      retryAfterMs?: number | undefined;
    };

const EXCERPT_LENGTH = 200;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Phone numbers appear in /data/userinfo paths; no log line carries a whole one. */
function maskPath(path: string): string {
  return path.replace(/\d{8,}/g, maskPhone);
}

export class PaymentClient {
  readonly options: ResolvedPaymentClientOptions;
  private readonly pool: Pool;
  /** Aborted by close(): ends rate-limit waits and retry backoffs at once. */
  private readonly closing = new AbortController();
  private closed: Promise<void> | undefined;

  /** Throws a TypeError listing every bad option (see resolvePaymentClientOptions). */
  constructor(options: PaymentClientOptions) {
    this.options = resolvePaymentClientOptions(options);
    this.pool = new Pool(this.options.origin, {
      connect: { timeout: this.options.connectTimeoutMs },
      headersTimeout: this.options.requestTimeoutMs,
      bodyTimeout: this.options.requestTimeoutMs,
      // Below the usual 5 s server keep-alive, so we rarely write to a socket the server is
      // closing. undici never resends a POST on its own (requests are idempotent only for
      // GET/HEAD), so that race costs an OutcomeUnknownError, never a second payment.
      keepAliveTimeout: 4_000,
    });
  }

  /** POST /collect. Throws OutcomeUnknownError when the request may have been acted on. */
  collect(request: PaymentRequest): Promise<Payment> {
    return this.post("collect", "/collect", request);
  }

  /** POST /disburse. Throws OutcomeUnknownError when the request may have been acted on. */
  disburse(request: PaymentRequest): Promise<Payment> {
    return this.post("disburse", "/disburse", request);
  }

  /** GET /payments/{id}. */
  async getPayment(id: string): Promise<Payment> {
    if (id === "") throw new TypeError("getPayment: the payment id is empty");
    return this.get("getPayment", `/payments/${encodeURIComponent(id)}`, PaymentSchema);
  }

  /** GET /availability. */
  getAvailability(): Promise<AvailabilityEntry[]> {
    return this.get("getAvailability", "/availability", AvailabilitySchema);
  }

  /** GET /data/userinfo/{phoneNumber}. */
  async getUserInfo(phone: string): Promise<UserInfo> {
    if (phone === "") throw new TypeError("getUserInfo: the phone number is empty");
    return this.get("getUserInfo", `/data/userinfo/${encodeURIComponent(phone)}`, UserInfoSchema);
  }

  /**
   * Ends rate-limit waits and retry backoffs at once (those calls throw their last error, or
   * RateLimitedError), lets requests in flight finish, then closes the connections. Idempotent.
   */
  close(): Promise<void> {
    if (!this.closed) {
      this.closing.abort(new Error("PaymentClient closed"));
      this.closed = this.pool.close();
    }
    return this.closed;
  }

  private post(operation: PaymentOperation, path: string, request: PaymentRequest) {
    const parsed = PaymentRequestSchema.safeParse(request);
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join(".")}: ${issue.message}`,
      );
      return Promise.reject(new TypeError(`${operation}: invalid request: ${problems.join("; ")}`));
    }
    // Only the fields the spec defines, in a fixed order: this exact text is what is signed.
    const body = JSON.stringify({
      amount: parsed.data.amount,
      phoneNumber: parsed.data.phoneNumber,
    });
    const fullPath = `${this.options.basePath}${path}`;
    return this.execute({ operation, method: "POST", path: fullPath, body, schema: PaymentSchema });
  }

  private get<T>(operation: PaymentOperation, path: string, schema: z.ZodType<T>): Promise<T> {
    const fullPath = `${this.options.basePath}${path}`;
    return this.execute({ operation, method: "GET", path: fullPath, body: undefined, schema });
  }

  private async execute<T>(call: Call<T>): Promise<T> {
    // Time on attempts and backoffs; rate-limiter waits have their own bound.
    let spentMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      await this.acquireSlot(call.operation);
      if (this.closed) {
        const cause = new Error("PaymentClient is closed");
        throw new PaymentNetworkError(call.operation, false, { cause });
      }
      const startedMs = performance.now();
      const outcome = await this.attempt(call, attempt);
      spentMs += performance.now() - startedMs;
      if (outcome.ok) return outcome.value;
      const retryAfterMs = outcome.retryAfterMs;
      const delayMs = shouldRetry(call.method, outcome.failure)
        ? nextRetryDelayMs({ attempt, spentMs, retryAfterMs }, this.options.retry)
        : undefined;
      const finalError = this.finalError(call, outcome.failure, outcome.error);
      if (delayMs === undefined) throw finalError;
      await sleep(delayMs, this.closing.signal).catch(() => {
        throw finalError;
      });
      spentMs += delayMs;
    }
  }

  /** The error a caller sees if this failure is the last: for a POST, unknown unless refused. */
  private finalError(
    call: Call<unknown>,
    failure: AttemptFailure,
    error: PaymentClientError,
  ): PaymentClientError {
    if (call.method === "POST" && mayHaveTakenEffect(failure)) {
      return new OutcomeUnknownError(call.operation, error);
    }
    return error;
  }

  private async acquireSlot(operation: PaymentOperation): Promise<void> {
    const limiter = this.options.limiter;
    if (!limiter) return;
    const giveUpAtMs = performance.now() + this.options.maxRateLimitWaitMs;
    for (;;) {
      const acquisition = await limiter.tryAcquire().catch((error: unknown) => {
        throw new LimiterUnavailableError(operation, error);
      });
      if (acquisition.granted) return;
      const waitMs = Math.max(1, acquisition.retryInMs);
      if (performance.now() + waitMs > giveUpAtMs || this.closing.signal.aborted) {
        throw new RateLimitedError(operation, waitMs);
      }
      await sleep(waitMs, this.closing.signal).catch(() => {
        throw new RateLimitedError(operation, waitMs);
      });
    }
  }

  private async attempt<T>(call: Call<T>, attempt: number): Promise<AttemptOutcome<T>> {
    const startedMs = performance.now();
    // Log fields are built only when someone reads them: this is the hot path.
    const logger = this.options.logger;
    const debug = logger.isLevelEnabled("debug");
    const logFields = () => ({
      method: call.method,
      path: maskPath(call.path),
      attempt,
      durationMs: Math.round(performance.now() - startedMs),
    });
    let response: RawResponse;
    try {
      response = await this.send(call);
    } catch (error) {
      const failure = classifyTransportError(error);
      if (debug) {
        const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
        logger.debug({ ...logFields(), failure: failure.kind, code }, "payment api request failed");
      }
      return { ok: false, failure, error: this.transportError(call.operation, failure, error) };
    }
    if (debug) logger.debug({ ...logFields(), status: response.statusCode }, "payment api request");
    return this.interpret(call, response);
  }

  /** One HTTP exchange under the attempt's deadline; the timer is cleared whatever happens. */
  private async send(call: Call<unknown>): Promise<RawResponse> {
    const timeoutMs = this.options.requestTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new AttemptDeadlineError(timeoutMs)), timeoutMs);
    try {
      const response = await this.pool.request({
        method: call.method,
        path: call.path,
        headers: this.requestHeaders(call),
        body: call.body,
        signal: deadline.signal,
      });
      const text = await response.body.text();
      return { statusCode: response.statusCode, headers: response.headers, text };
    } finally {
      clearTimeout(timer);
    }
  }

  private requestHeaders(call: Call<unknown>): Record<string, string> {
    const headers: Record<string, string> = {
      "x-api-key": this.options.apiKey,
      accept: "application/json",
    };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    const key = this.options.signingKey;
    if (key) {
      const body = call.body ?? "";
      Object.assign(
        headers,
        signParts(key, { method: call.method, pathAndQuery: call.path, body }),
      );
    }
    return headers;
  }

  private transportError(
    operation: PaymentOperation,
    failure: AttemptFailure,
    cause: unknown,
  ): PaymentClientError {
    if (failure.kind === "timeout") {
      return new PaymentTimeoutError(operation, this.options.requestTimeoutMs, { cause });
    }
    return new PaymentNetworkError(operation, failure.kind !== "not-sent", { cause });
  }

  /** Signature first (an unsigned answer is not evidence of anything), then status and body. */
  private interpret<T>(call: Call<T>, response: RawResponse): AttemptOutcome<T> {
    const { operation } = call;
    const problem = this.signatureProblem(call, response);
    if (problem) {
      const error = new SignatureError(operation, problem);
      return { ok: false, failure: { kind: "bad-signature" }, error };
    }
    const { statusCode, text } = response;
    if (statusCode < 200 || statusCode > 299) {
      const failure: AttemptFailure = { kind: "status", statusCode };
      const error = this.apiError(operation, response);
      return { ok: false, failure, error, retryAfterMs: error.retryAfterMs };
    }
    const json = parseJson(text);
    if (!json.ok) {
      const error = new InvalidResponseError(operation, statusCode, [
        `body is not JSON: ${excerpt(text)}`,
      ]);
      return { ok: false, failure: { kind: "invalid-response" }, error };
    }
    const parsed = call.schema.safeParse(json.value);
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`,
      );
      const error = new InvalidResponseError(operation, statusCode, problems);
      return { ok: false, failure: { kind: "invalid-response" }, error };
    }
    return { ok: true, value: parsed.data };
  }

  private signatureProblem(call: Call<unknown>, response: RawResponse): string | null {
    const publicKey = this.options.verifyKey;
    if (!publicKey) return null;
    return verifyParts({
      publicKey,
      signature: headerValue(response.headers[SIGNATURE_HEADER]),
      timestamp: headerValue(response.headers[TIMESTAMP_HEADER]),
      method: call.method,
      pathAndQuery: call.path,
      body: response.text,
    });
  }

  private apiError(operation: PaymentOperation, response: RawResponse): PaymentApiError {
    const { statusCode, text } = response;
    const retryAfterMs =
      statusCode === 429 || statusCode === 503
        ? parseRetryAfter(response.headers["retry-after"], Date.now())
        : undefined;
    const json = parseJson(text);
    const body = json.ok ? HttpErrorSchema.safeParse(json.value) : undefined;
    if (body?.success) {
      const { message, details } = body.data;
      return new PaymentApiError(operation, {
        statusCode,
        apiMessage: message,
        details,
        retryAfterMs,
      });
    }
    // Not an HttpError (a proxy's HTML page, an empty body): a short excerpt says enough.
    return new PaymentApiError(operation, { statusCode, apiMessage: excerpt(text), retryAfterMs });
  }
}
