/**
 * One request/response exchange with the sandbox. API requests go, in order, through:
 * read the body (≤ 64 KiB) → record → injected fault → 413 → `X-API-Key` (401) →
 * request `X-Sig` when required (401) → rate limit (429) → the endpoint; the answer is then
 * signed (`X-Sig` over the request's method and path+query and the exact response body).
 * Admin requests (`/_sandbox/…`) skip all of that but the body limit.
 */
import type { KeyObject } from "node:crypto";
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import { maskPhonesIn } from "../logger.js";
import { ADMIN_PREFIX, routeAdmin } from "./admin.js";
import { DEFAULT_ACCOUNT, routeApi } from "./api.js";
import type { SandboxControls, SandboxParts } from "./controls.js";
import type { Fault } from "./faults.js";
import {
  type ApiResponse,
  bodyText,
  httpError,
  isLoopback,
  parseJson,
  type ReadBody,
  readBody,
  writeResponse,
} from "./http-io.js";
import { MAX_BODY_BYTES } from "./options.js";
import { firstHeader, requestSignatureProblem, signatureHeaders } from "./signing.js";

export interface ExchangeContext {
  parts: SandboxParts;
  controls: SandboxControls;
  privateKey: KeyObject;
  /** Set when requests must be signed. */
  requestVerifyKey: KeyObject | undefined;
  apiKeys: ReadonlySet<string>;
  /** The merchant account of each key (options.ts `accounts`). */
  accountOf: ReadonlyMap<string, string>;
  /** A wait that `close()` cancels (the promise then never settles). */
  sleep: (ms: number) => Promise<void>;
}

interface Target {
  method: string;
  /** Exactly as sent: what the client signed and what we sign back. */
  pathAndQuery: string;
  path: string;
  query: string;
}

function targetOf(req: IncomingMessage): Target {
  const pathAndQuery = req.url ?? "/";
  const queryAt = pathAndQuery.indexOf("?");
  return {
    method: (req.method ?? "GET").toUpperCase(),
    pathAndQuery,
    path: queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt),
    query: queryAt === -1 ? "" : pathAndQuery.slice(queryAt),
  };
}

/** Handles one request; never rejects (a failure becomes a 500). */
export async function handleExchange(
  context: ExchangeContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const target = targetOf(req);
  const startedMs = Date.now();
  try {
    const isAdmin = target.path === "/_sandbox" || target.path.startsWith(ADMIN_PREFIX);
    const status = isAdmin
      ? await handleAdmin(context, req, res, target)
      : await handleApi(context, req, res, target);
    context.parts.options.logger.info(
      {
        method: target.method,
        path: maskPhonesIn(target.path),
        status: status ?? "no answer",
        durationMs: Date.now() - startedMs,
      },
      "sandbox request",
    );
  } catch (error) {
    if (req.destroyed && !res.headersSent) return; // the client went away mid-body
    context.parts.options.logger.error({ err: error }, "sandbox request failed");
    send(context, res, target, httpError(500, "an error occurred", [{ reason: "SANDBOX_BUG" }]));
  }
}

async function handleAdmin(
  context: ExchangeContext,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
): Promise<number> {
  if (!isLoopback(req.socket.remoteAddress)) {
    req.resume();
    return reply(res, httpError(403, "the sandbox admin surface is for loopback clients only"));
  }
  const body = await readBody(req, MAX_BODY_BYTES);
  const response = body.tooLarge
    ? tooLarge()
    : routeAdmin(
        { controls: context.controls, publicKeyPem: context.parts.publicKeyPem },
        target.method,
        target.path === "/_sandbox" ? ADMIN_PREFIX : target.path,
        body.text,
      );
  return reply(res, response);
}

function reply(res: ServerResponse, response: ApiResponse): number {
  writeResponse(res, response.status, bodyText(response), response.headers ?? {});
  return response.status;
}

/** The status sent, or undefined when the fault left the request unanswered. */
async function handleApi(
  context: ExchangeContext,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
): Promise<number | undefined> {
  const body = await readBody(req, MAX_BODY_BYTES);
  const apiKey = firstHeader(req.headers["x-api-key"]);
  context.parts.requests.record({
    method: target.method,
    path: target.path,
    query: target.query,
    body: body.tooLarge ? undefined : parseJson(body.text),
    atMs: Date.now(),
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  const fault = context.parts.faults.take(target.method, target.path);
  let response: ApiResponse | undefined;
  if (fault && !fault.afterHandling) {
    const effect = await applyFault(context, fault, req);
    if (effect === "silence") return undefined;
    if (effect !== "continue") response = effect;
  }
  response ??= answer(context, req, target, body, apiKey);
  if (fault?.afterHandling) {
    const effect = await applyFault(context, fault, req);
    if (effect === "silence") return undefined;
    if (effect !== "continue") response = effect;
  }
  return send(context, res, target, response);
}

/** What the API itself answers, faults aside. */
function answer(
  context: ExchangeContext,
  req: IncomingMessage,
  target: Target,
  body: ReadBody,
  apiKey: string | undefined,
): ApiResponse {
  if (body.tooLarge) return tooLarge();
  if (apiKey === undefined || !context.apiKeys.has(apiKey)) {
    return httpError(401, "unauthorized", [
      { header: "X-API-Key", problem: apiKey === undefined ? "missing" : "unknown or revoked key" },
    ]);
  }
  if (context.requestVerifyKey) {
    const problem = requestSignatureProblem(context.requestVerifyKey, {
      signature: firstHeader(req.headers["x-sig"]),
      timestamp: firstHeader(req.headers["x-sig-timestamp"]),
      method: target.method,
      pathAndQuery: target.pathAndQuery,
      body: body.text,
      nowMs: Date.now(),
    });
    if (problem) {
      return httpError(401, "unauthorized: bad request signature", [{ header: "X-Sig", problem }]);
    }
  }
  const retryAfterSeconds = context.parts.limiter.take(apiKey, Date.now());
  if (retryAfterSeconds > 0) {
    const limitPerMinute = context.parts.options.rateLimitPerMinute;
    return httpError(429, "too many requests", [{ limitPerMinute, retryAfterSeconds }], {
      "retry-after": String(retryAfterSeconds),
    });
  }
  const account = context.accountOf.get(apiKey) ?? DEFAULT_ACCOUNT;
  return routeApi(context.parts.state, target.method, target.path, body.text, account);
}

function tooLarge(): ApiResponse {
  return httpError(413, "request body too large", [{ limitBytes: MAX_BODY_BYTES }]);
}

/** Delays, answers for the API, or leaves the request unanswered, as the fault says. */
async function applyFault(
  context: ExchangeContext,
  fault: Fault,
  req: IncomingMessage,
): Promise<ApiResponse | "continue" | "silence"> {
  if (fault.delayMs !== undefined && fault.delayMs > 0) await context.sleep(fault.delayMs);
  if (fault.hang) return "silence";
  if (fault.destroySocket) {
    req.socket.destroy();
    return "silence";
  }
  if (fault.status === undefined) return "continue";
  const headers: Record<string, string> =
    fault.retryAfterSeconds === undefined ? {} : { "retry-after": String(fault.retryAfterSeconds) };
  if (fault.body !== undefined) return { status: fault.status, body: fault.body, headers };
  const message = STATUS_CODES[fault.status] ?? "injected fault";
  return httpError(fault.status, message, [{ reason: "SANDBOX_FAULT" }], headers);
}

/** Writes an API answer, signed when the sandbox signs responses. */
function send(
  context: ExchangeContext,
  res: ServerResponse,
  target: Target,
  response: ApiResponse,
): number {
  const text = bodyText(response);
  const signature = context.parts.options.signResponses
    ? signatureHeaders(context.privateKey, {
        method: target.method,
        pathAndQuery: target.pathAndQuery,
        body: text,
        timestampMs: Date.now() + context.parts.options.clockSkewMs,
      })
    : {};
  writeResponse(res, response.status, text, { ...response.headers, ...signature });
  return response.status;
}
