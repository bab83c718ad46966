/**
 * Reading one answer of the Payment API: its signature, its status (→ PaymentApiError) and its
 * body (JSON, then the call's zod schema). Nothing here sends, retries or waits.
 */
import type { KeyObject } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { Logger } from "../logger.js";
import {
  InvalidResponseError,
  PaymentApiError,
  type PaymentClientError,
  type PaymentOperation,
  SignatureError,
} from "./errors.js";
import { type AttemptFailure, parseRetryAfter, type RetryMethod } from "./retry.js";
import { HttpErrorSchema } from "./schemas.js";
import { headerValue, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyParts } from "./signature.js";

/** What reading an answer needs to know of the request it answers. */
export interface AnsweredCall<T> {
  operation: PaymentOperation;
  method: RetryMethod;
  /** Full path as sent, base path included, segments already encoded. */
  path: string;
  schema: z.ZodType<T>;
  /** What in a readable body was not as published (logged, never refused). */
  oddities?: (body: unknown) => string[];
  /**
   * The value, when the body is exactly as published (no oddities); undefined sends it
   * through `schema` and `oddities`. A shortcut that must read as `schema` does.
   */
  published?: (body: unknown) => T | undefined;
}

export interface RawResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export type AttemptOutcome<T> =
  | { ok: true; value: T; oddities?: string[] }
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

/**
 * Signature first (an unsigned answer is not evidence of anything), then status and body.
 * `verifyKey` undefined: signatures are not checked.
 */
export function interpretResponse<T>(
  call: AnsweredCall<T>,
  response: RawResponse,
  verifyKey: KeyObject | undefined,
): AttemptOutcome<T> {
  const { operation } = call;
  const problem = signatureProblem(call, response, verifyKey);
  if (problem) {
    const error = new SignatureError(operation, problem);
    return { ok: false, failure: { kind: "bad-signature" }, error };
  }
  const { statusCode, text } = response;
  if (statusCode < 200 || statusCode > 299) {
    const failure: AttemptFailure = { kind: "status", statusCode };
    const error = apiError(operation, response);
    return { ok: false, failure, error, retryAfterMs: error.retryAfterMs };
  }
  const json = parseJson(text);
  if (!json.ok) {
    const error = new InvalidResponseError(operation, statusCode, [
      `body is not JSON: ${excerpt(text)}`,
    ]);
    return { ok: false, failure: { kind: "invalid-response" }, error };
  }
  const published = call.published?.(json.value);
  if (published !== undefined) return { ok: true, value: published };
  const parsed = call.schema.safeParse(json.value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`,
    );
    const error = new InvalidResponseError(operation, statusCode, problems);
    return { ok: false, failure: { kind: "invalid-response" }, error };
  }
  return { ok: true, value: parsed.data, oddities: call.oddities?.(json.value) };
}

/**
 * An answer that failed the signature check is logged as what it is, not as an outage: the
 * configured key is wrong, or the service (a restarted sandbox) signs with a new one.
 */
export function logBadSignature(
  logger: Logger,
  fields: () => Record<string, unknown>,
  outcome: AttemptOutcome<unknown>,
): void {
  if (outcome.ok || !(outcome.error instanceof SignatureError)) return;
  logger.error(
    { ...fields(), code: outcome.error.code, problem: outcome.error.problem },
    "payment api answer is not signed with the configured key (PAYMENT_SIGNATURE_PUBLIC_KEY)",
  );
}

function signatureProblem(
  call: AnsweredCall<unknown>,
  response: RawResponse,
  publicKey: KeyObject | undefined,
): string | null {
  if (!publicKey) return null;
  return verifyParts({
    publicKey,
    signature: headerValue(response.headers[SIGNATURE_HEADER]),
    timestamp: headerValue(response.headers[TIMESTAMP_HEADER]),
    method: call.method,
    pathAndQuery: call.path,
    body: response.text,
    // The answer to the request we just sent on our own connection cannot be a replay.
    maxSkewMs: null,
  });
}

function apiError(operation: PaymentOperation, response: RawResponse): PaymentApiError {
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
