/**
 * The Payment API client (shared/payment-api-spec.md) on an undici Pool. Every attempt has a
 * deadline and first takes a slot from the rate limiter (or uses one taken ahead, see
 * `takeSlot`); calls are retried only as retry.ts
 * allows: GETs on anything transient, POST /collect and /disburse only when the API certainly
 * did not act. A POST whose fate we cannot know throws OutcomeUnknownError.
 */
import { Pool } from "undici";
import type { z } from "zod";
import { maskPhonesIn } from "../logger.js";
import {
  type PaymentClientOptions,
  type ResolvedPaymentClientOptions,
  resolvePaymentClientOptions,
} from "./client-options.js";
import {
  type AnsweredCall,
  type AttemptOutcome,
  interpretResponse,
  logBadSignature,
  type RawResponse,
} from "./client-response.js";
import { closingController, type SendOptions, takeSlotNow, waitForSlot } from "./client-slots.js";
import {
  OutcomeUnknownError,
  type PaymentClientError,
  PaymentNetworkError,
  type PaymentOperation,
  PaymentTimeoutError,
} from "./errors.js";
import { Deadlines, exchange } from "./exchange.js";
import type { SharedSlot } from "./rate-limiter.js";
import {
  type AttemptFailure,
  classifyTransportError,
  mayHaveTakenEffect,
  nextRetryDelayMs,
  shouldRetry,
  sleep,
} from "./retry.js";
import {
  type AvailabilityEntry,
  AvailabilitySchema,
  type Payment,
  type PaymentRequest,
  PaymentRequestSchema,
  PaymentSchema,
  paymentOddities,
  publishedPayment,
  type UserInfo,
  UserInfoSchema,
} from "./schemas.js";
import { signParts } from "./signature.js";

/** How a payment answer is read: one zod pass when it is as published, else two. */
const PAYMENT_READING = {
  schema: PaymentSchema,
  oddities: paymentOddities,
  published: publishedPayment,
};

/** One request as the client sends it: what the answer is read against, plus the body. */
interface Call<T> extends AnsweredCall<T> {
  body: string | undefined;
}

/** The most of an answer's body read (a payment is under 1 KB; a page of them is not asked for). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export class PaymentClient {
  readonly options: ResolvedPaymentClientOptions;
  private readonly pool: Pool;
  /** Every attempt's deadline (requestTimeoutMs from its start), on one timer. */
  private readonly deadlines: Deadlines;
  /** What every request carries, and every request with a JSON body; built once. */
  private readonly baseHeaders: Readonly<Record<string, string>>;
  private readonly jsonHeaders: Readonly<Record<string, string>>;
  /** Aborted by close(): ends rate-limit waits and retry backoffs at once. */
  private readonly closing = closingController();
  private closed: Promise<void> | undefined;

  /** Throws a TypeError listing every bad option (see resolvePaymentClientOptions). */
  constructor(options: PaymentClientOptions) {
    this.options = resolvePaymentClientOptions(options);
    this.baseHeaders = { "x-api-key": this.options.apiKey, accept: "application/json" };
    this.jsonHeaders = { ...this.baseHeaders, "content-type": "application/json" };
    this.deadlines = new Deadlines(this.options.requestTimeoutMs);
    this.pool = new Pool(this.options.origin, {
      connect: { timeout: this.options.connectTimeoutMs },
      headersTimeout: this.options.requestTimeoutMs,
      bodyTimeout: this.options.requestTimeoutMs,
      // Below the usual 5 s server keep-alive, so we rarely write to a socket the server is
      // closing. undici never resends a POST on its own (requests are idempotent only for
      // GET/HEAD), so that race costs an OutcomeUnknownError, never a second payment.
      keepAliveTimeout: 4_000,
      // An answer is a few hundred bytes: one past this is read no further (size, as the
      // deadline bounds time: an outsider's input gets both).
      maxResponseSize: MAX_ANSWER_BYTES,
    });
  }

  /** POST /collect. Throws OutcomeUnknownError when the request may have been acted on. */
  collect(request: PaymentRequest, send?: SendOptions): Promise<Payment> {
    return this.post("collect", "/collect", request, send);
  }

  /** POST /disburse. Throws OutcomeUnknownError when the request may have been acted on. */
  disburse(request: PaymentRequest, send?: SendOptions): Promise<Payment> {
    return this.post("disburse", "/disburse", request, send);
  }

  /**
   * Takes a rate-limit slot now, if the limit allows, for one payment request to send at
   * once with `{ slotTaken: true }`: true when taken. One not used is simply spent.
   */
  takeSlot(): Promise<boolean> {
    return takeSlotNow(this.options.limiter);
  }

  /**
   * The limit as a store can take a slot of it in a step of its own (and round trip), for
   * a request then sent with `{ slotTaken: true }`; undefined when the limiter is not shared
   * through a store. `background`: leaving the interactive reserve, as such a request would.
   */
  sharedSlot(options: { background?: boolean } = {}): SharedSlot | undefined {
    const { limiter, interactiveReserve } = this.options;
    return limiter?.shared?.(options.background ? interactiveReserve : 0);
  }

  /**
   * A slot for `operation` leaving `leave` of the window to others (batch work), however long
   * the window needs, until close(); `keepAlive` is called every second meanwhile.
   */
  waitSlot(operation: PaymentOperation, leave: number, keepAlive?: () => Promise<void>) {
    const { limiter } = this.options;
    return waitForSlot(limiter, operation, Infinity, this.closing.signal, leave, keepAlive);
  }

  /** GET /payments/{id}; `{ background: true }` for re-reads and polls no person waits on. */
  async getPayment(id: string, send?: SendOptions): Promise<Payment> {
    if (id === "") throw new TypeError("getPayment: the payment id is empty");
    const path = `/payments/${encodeURIComponent(id)}`;
    const fullPath = `${this.options.basePath}${path}`;
    return this.execute(
      {
        operation: "getPayment",
        method: "GET",
        path: fullPath,
        body: undefined,
        ...PAYMENT_READING,
      },
      send,
    );
  }

  /** GET /availability; `{ background: true }` for the periodic checks. */
  getAvailability(send?: SendOptions): Promise<AvailabilityEntry[]> {
    return this.get("getAvailability", "/availability", AvailabilitySchema, undefined, send);
  }

  /** GET /data/userinfo/{phoneNumber}. */
  async getUserInfo(phone: string, send?: SendOptions): Promise<UserInfo> {
    if (phone === "") throw new TypeError("getUserInfo: the phone number is empty");
    const path = `/data/userinfo/${encodeURIComponent(phone)}`;
    return this.get("getUserInfo", path, UserInfoSchema, undefined, send);
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

  private post(
    operation: PaymentOperation,
    path: string,
    request: PaymentRequest,
    send: SendOptions = {},
  ) {
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
    return this.execute(
      { operation, method: "POST", path: fullPath, body, ...PAYMENT_READING },
      send,
    );
  }

  private get<T>(
    operation: PaymentOperation,
    path: string,
    schema: z.ZodType<T>,
    oddities?: (body: unknown) => string[],
    send?: SendOptions,
  ): Promise<T> {
    const fullPath = `${this.options.basePath}${path}`;
    return this.execute(
      { operation, method: "GET", path: fullPath, body: undefined, schema, oddities },
      send,
    );
  }

  private async execute<T>(call: Call<T>, send: SendOptions = {}): Promise<T> {
    // Time on attempts and backoffs; rate-limiter waits have their own bound.
    let spentMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      const ahead = attempt === 1 && send.slotTaken === true;
      // Each await costs a turn of the event loop even with nothing to wait for: none is
      // taken without a limiter or a hook (the hot path of bench/client-overhead.ts).
      const { limiter } = this.options;
      if (!ahead && limiter) {
        const { maxRateLimitWaitMs, interactiveReserve } = this.options;
        const leave = send.background ? interactiveReserve : 0;
        await waitForSlot(limiter, call.operation, maxRateLimitWaitMs, this.closing.signal, leave);
      }
      if (!ahead && send.beforeSend) await send.beforeSend();
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
      this.options.metrics.paymentRetry(call.operation);
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

  private async attempt<T>(call: Call<T>, attempt: number): Promise<AttemptOutcome<T>> {
    const startedMs = performance.now();
    // Log fields are built only when a line is written: this is the hot path.
    const logger = this.options.logger;
    const debug = logger.isLevelEnabled("debug");
    let response: RawResponse;
    try {
      response = await this.send(call);
    } catch (error) {
      const failure = classifyTransportError(error);
      this.recordAttempt(call.operation, failure.kind, startedMs);
      if (debug) {
        const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
        const fields = this.logFields(call, attempt, startedMs);
        logger.debug({ ...fields, failure: failure.kind, code }, "payment api request failed");
      }
      return { ok: false, failure, error: this.transportError(call.operation, failure, error) };
    }
    this.recordAttempt(call.operation, response.statusCode, startedMs);
    if (debug) {
      const fields = this.logFields(call, attempt, startedMs);
      logger.debug({ ...fields, status: response.statusCode }, "payment api request");
    }
    const outcome = interpretResponse(call, response, this.options.verifyKey);
    if (!outcome.ok) {
      logBadSignature(logger, () => this.logFields(call, attempt, startedMs), outcome);
    } else if (outcome.oddities && outcome.oddities.length > 0) {
      // Read and used all the same: an odd field must not cost a payment its tracking.
      const fields = this.logFields(call, attempt, startedMs);
      logger.warn({ ...fields, oddities: outcome.oddities }, "payment api answer was odd");
    }
    return outcome;
  }

  private logFields(call: Call<unknown>, attempt: number, startedMs: number) {
    return {
      method: call.method,
      // Phone numbers appear in /data/userinfo paths; no log line carries a whole one.
      path: maskPhonesIn(call.path),
      attempt,
      durationMs: Math.round(performance.now() - startedMs),
    };
  }

  private recordAttempt(
    operation: PaymentOperation,
    status: string | number,
    startedMs: number,
  ): void {
    const { metrics } = this.options;
    if (!metrics.enabled) return;
    const durationSeconds = (performance.now() - startedMs) / 1000;
    metrics.paymentAttempt({ operation, status: String(status), durationSeconds });
  }

  /** One HTTP exchange under the attempt's deadline (see exchange.ts). */
  private send(call: Call<unknown>): Promise<RawResponse> {
    return exchange(this.pool, this.deadlines, {
      method: call.method,
      path: call.path,
      headers: this.requestHeaders(call),
      body: call.body,
    });
  }

  private requestHeaders(call: Call<unknown>): Readonly<Record<string, string>> {
    const headers = call.body === undefined ? this.baseHeaders : this.jsonHeaders;
    const key = this.options.signingKey;
    if (!key) return headers;
    const body = call.body ?? "";
    return {
      ...headers,
      ...signParts(key, { method: call.method, pathAndQuery: call.path, body }),
    };
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
}
