/**
 * Errors of the Payment API client. They carry facts, not prose. The difference that
 * matters most for money: `PaymentApiError` means the API answered and refused, so nothing
 * happened; `OutcomeUnknownError` means a payment request may have reached the API and we
 * never learned what it did, so it must not be retried and must be verified by a person.
 */

export type PaymentOperation =
  | "collect"
  | "disburse"
  | "getPayment"
  | "getAvailability"
  | "getUserInfo";

export abstract class PaymentClientError extends Error {
  abstract readonly code: string;
  readonly operation: PaymentOperation;

  constructor(operation: PaymentOperation, message: string, options?: ErrorOptions) {
    super(message, options);
    this.operation = operation;
    this.name = new.target.name;
  }
}

/** The API answered with an error status and (usually) an HttpError body. */
export class PaymentApiError extends PaymentClientError {
  readonly code = "PAYMENT_API_ERROR";
  readonly statusCode: number;
  /** `message` of the HttpError body, or a short excerpt of a non-JSON body. */
  readonly apiMessage: string;
  readonly details: readonly unknown[];
  /** From `Retry-After` on a 429 or 503, when the API sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(
    operation: PaymentOperation,
    init: {
      statusCode: number;
      apiMessage: string;
      details?: readonly unknown[];
      retryAfterMs?: number;
    },
  ) {
    super(
      operation,
      `${operation}: the Payment API answered ${init.statusCode}: ${init.apiMessage}`,
    );
    this.statusCode = init.statusCode;
    this.apiMessage = init.apiMessage;
    this.details = init.details ?? [];
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** No answer within the deadline. For a GET: nothing changed. POSTs raise OutcomeUnknownError. */
export class PaymentTimeoutError extends PaymentClientError {
  readonly code = "PAYMENT_TIMEOUT";
  readonly timeoutMs: number;

  constructor(operation: PaymentOperation, timeoutMs: number, options?: ErrorOptions) {
    super(
      operation,
      `${operation}: no answer from the Payment API within ${timeoutMs} ms`,
      options,
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The connection failed. `requestSent: false` only when it is certain no byte of the
 * request reached the server (connection refused, DNS failure): that is the one network
 * failure after which a payment request may be sent again.
 */
export class PaymentNetworkError extends PaymentClientError {
  readonly code = "PAYMENT_NETWORK";
  readonly requestSent: boolean;

  constructor(operation: PaymentOperation, requestSent: boolean, options?: ErrorOptions) {
    super(
      operation,
      `${operation}: network failure talking to the Payment API${requestSent ? "" : " (request not sent)"}`,
      options,
    );
    this.requestSent = requestSent;
  }
}

/** A 2xx answer whose body does not match the spec. */
export class InvalidResponseError extends PaymentClientError {
  readonly code = "PAYMENT_INVALID_RESPONSE";
  readonly statusCode: number;
  readonly problems: readonly string[];

  constructor(operation: PaymentOperation, statusCode: number, problems: readonly string[]) {
    super(
      operation,
      `${operation}: unexpected response from the Payment API: ${problems.join("; ")}`,
    );
    this.statusCode = statusCode;
    this.problems = problems;
  }
}

/**
 * A response whose `X-Sig` is missing or does not verify (only when verification is on):
 * the answer is not signed with the key in PAYMENT_SIGNATURE_PUBLIC_KEY. Not an outage.
 */
export class SignatureError extends PaymentClientError {
  readonly code = "PAYMENT_BAD_SIGNATURE";
  readonly problem: string;

  constructor(operation: PaymentOperation, problem: string) {
    super(
      operation,
      `${operation}: the answer is not signed with the configured key (signature ${problem})`,
    );
    this.problem = problem;
  }
}

/**
 * A collect/disburse request may have reached the API, and we do not know what it did
 * (timeout, reset, 5xx, unreadable or unsigned 2xx). Never retried; `cause` says why.
 */
export class OutcomeUnknownError extends PaymentClientError {
  readonly code = "PAYMENT_OUTCOME_UNKNOWN";

  constructor(operation: PaymentOperation, cause: unknown) {
    super(
      operation,
      `${operation}: the request may have reached the Payment API; outcome unknown`,
      {
        cause,
      },
    );
  }
}

/** The client-side rate limiter could not grant a request slot before the deadline. */
export class RateLimitedError extends PaymentClientError {
  readonly code = "PAYMENT_RATE_LIMITED";
  readonly waitMs: number;

  constructor(operation: PaymentOperation, waitMs: number) {
    super(operation, `${operation}: rate limit reached; next slot in ${waitMs} ms`);
    this.waitMs = waitMs;
  }
}

/** The shared rate limiter (Redis) could not be asked: the request was not sent. */
export class LimiterUnavailableError extends PaymentClientError {
  readonly code = "PAYMENT_LIMITER_UNAVAILABLE";

  constructor(operation: PaymentOperation, cause: unknown) {
    super(operation, `${operation}: the rate limiter is unavailable; request not sent`, { cause });
  }
}
