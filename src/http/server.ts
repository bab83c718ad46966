/**
 * The HTTP side: `/healthz` for orchestrators, the Payment API's status callbacks, and
 * Telegram's webhook. Bodies are size-limited and slow requests time out, so neither a
 * large nor a trickling request can exhaust the server.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { attachWebhookReply } from "../bot/telegram/webhook-reply.js";
import type { Logger } from "../logger.js";
import { headerValue, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../payments/signature.js";
import type { CallbackRequest, CallbackResponse } from "../payouts/webhook.js";
import { answerMetrics, METRICS_PATH, type MetricsSource } from "./metrics-server.js";
import { callbackQueryIdOf, HeldWebhookReply } from "./telegram-reply.js";
import type { WebAppHandler } from "./webapp/handler.js";

export const MAX_BODY_BYTES = 64 * 1024;

/** How long a client may take; see node:http's Server for each. */
export interface HttpServerTimeouts {
  /** Whole request (headers and body) must arrive within this. Default 10 000. */
  requestTimeoutMs?: number;
  /** Headers must arrive within this. Default 5 000. */
  headersTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. Default 5 000. */
  keepAliveTimeoutMs?: number;
  /**
   * How often node:http checks the two timeouts above; a slow client is cut off up to this
   * late. Node's own default (30 s) would let one hold a connection for 40 s. Default 1 000.
   */
  connectionsCheckingIntervalMs?: number;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  logger: Logger;
  /** True when the bot can work (Redis answers, bot running). */
  health: () => Promise<boolean>;
  paymentWebhook?: {
    path: string;
    /** The callbacks on `path` itself; undefined: none there (several merchants). */
    receive?: (request: CallbackRequest) => Promise<CallbackResponse>;
    /** The callbacks of one merchant, on `path/<merchant id>` (MERCHANTS_FILE); undefined: unknown. */
    merchant?: (
      merchantId: string,
    ) => ((request: CallbackRequest) => Promise<CallbackResponse>) | undefined;
  };
  telegramWebhook?: {
    path: string;
    secret: string;
    handleUpdate: (update: unknown) => Promise<void>;
    /**
     * How long a button press's POST is held for the bot's answer to travel in the reply
     * (telegram-reply.ts); 0 or absent: every update is answered at once.
     */
    replyWithinMs?: number;
  };
  /** The Mini App: its page under `/app/` and its API under `/app/api/` (see webapp/). */
  webApp?: WebAppHandler;
  /** `GET /metrics` (METRICS_ENABLED); absent: `/metrics` is not found. */
  metrics?: MetricsSource;
  timeouts?: HttpServerTimeouts;
}

export interface HttpServerHandle {
  server: Server;
  /** e.g. http://127.0.0.1:8080: where a client on this machine reaches it. */
  url: string;
  /** The address actually bound, e.g. `0.0.0.0:8080` (every interface) or `127.0.0.1:8080`. */
  listening: string;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}
/** The client went away (or was cut off by a timeout) before its body was read. */
class RequestAborted extends Error {}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Not destroyed here: the 413 must still reach the client (the connection is
        // closed after it, and the request timeout ends a client that keeps sending).
        tooLarge = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
    // A connection cut off by a timeout must not leave this promise (and its route) waiting.
    request.on("close", () => {
      if (!request.complete) reject(new RequestAborted());
    });
  });
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  options: { close?: boolean } = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    // The rest of an oversized body is never read: end the connection after the answer.
    ...(options.close ? { connection: "close" } : {}),
  });
  response.end(text);
}

function secretMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who takes a callback to `pathname`: the single merchant's on the path itself, one
 * merchant's on `path/<id>`; null: a merchant's path naming no merchant we serve;
 * undefined: not a callback path.
 */
function paymentReceiver(
  payment: NonNullable<HttpServerOptions["paymentWebhook"]>,
  pathname: string,
): ((request: CallbackRequest) => Promise<CallbackResponse>) | null | undefined {
  if (pathname === payment.path) return payment.receive ?? null;
  const base = payment.path.endsWith("/") ? payment.path : `${payment.path}/`;
  if (!payment.merchant || !pathname.startsWith(base)) return undefined;
  const id = pathname.slice(base.length);
  return (/^[a-z0-9-]{2,32}$/.test(id) ? payment.merchant(id) : undefined) ?? null;
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const { logger } = options;

  const route = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const method = request.method ?? "GET";
    if (url.pathname === "/healthz" && (method === "GET" || method === "HEAD")) {
      const healthy = await options.health().catch(() => false);
      send(response, healthy ? 200 : 503, { ok: healthy });
      return;
    }
    if (options.metrics && url.pathname === METRICS_PATH) {
      return answerMetrics(request, response, options.metrics);
    }
    const payment = options.paymentWebhook;
    const receive = payment && paymentReceiver(payment, url.pathname);
    if (receive === null) return send(response, 404, { ok: false, error: "no such merchant" });
    if (receive) {
      if (method !== "POST") return send(response, 405, { ok: false, error: "use POST" });
      const body = await readBody(request);
      const result = await receive({
        body,
        pathAndQuery: `${url.pathname}${url.search}`,
        signature: headerValue(request.headers[SIGNATURE_HEADER]),
        timestamp: headerValue(request.headers[TIMESTAMP_HEADER]),
      });
      return send(response, result.status, result.body);
    }
    const telegram = options.telegramWebhook;
    if (telegram && url.pathname === telegram.path) {
      if (method !== "POST") return send(response, 405, { ok: false, error: "use POST" });
      const given = headerValue(request.headers["x-telegram-bot-api-secret-token"]);
      if (!secretMatches(given, telegram.secret)) {
        logger.warn("telegram webhook call without the right secret token refused");
        return send(response, 401, { ok: false, error: "wrong secret token" });
      }
      let update: unknown;
      try {
        update = JSON.parse(await readBody(request));
      } catch (error) {
        if (error instanceof BodyTooLarge) throw error;
        return send(response, 400, { ok: false, error: "body is not JSON" });
      }
      // A press is answered within a short bound, its answer in the reply if the bot gives
      // it by then; any other update at once. Either way it is handled after the 200.
      const queryId = callbackQueryIdOf(update);
      const withinMs = telegram.replyWithinMs ?? 0;
      const reply =
        queryId !== undefined && withinMs > 0 && typeof update === "object" && update !== null
          ? new HeldWebhookReply(response, queryId, withinMs)
          : undefined;
      if (reply) attachWebhookReply(update as object, reply);
      else send(response, 200, { ok: true });
      void telegram
        .handleUpdate(update)
        .catch((error: unknown) => logger.error({ err: error }, "webhook update failed"))
        .finally(() => reply?.close());
      return;
    }
    if (options.webApp && (await options.webApp.handle(request, response, url, readBody))) return;
    send(response, 404, { ok: false, error: "not found" });
  };

  const timeouts = options.timeouts ?? {};
  const server = createServer(
    { connectionsCheckingInterval: timeouts.connectionsCheckingIntervalMs ?? 1_000 },
    (request, response) => {
      route(request, response).catch((error: unknown) => {
        if (error instanceof BodyTooLarge) {
          if (!response.headersSent)
            send(
              response,
              413,
              { ok: false, error: `body over ${MAX_BODY_BYTES} bytes` },
              { close: true },
            );
          return;
        }
        if (error instanceof RequestAborted) {
          logger.debug("http request abandoned before its body was read");
          return;
        }
        logger.error({ err: error }, "http request failed");
        if (!response.headersSent) send(response, 500, { ok: false, error: "internal error" });
      });
    },
  );
  server.requestTimeout = timeouts.requestTimeoutMs ?? 10_000;
  server.headersTimeout = timeouts.headersTimeoutMs ?? 5_000;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs ?? 5_000;
  server.maxHeadersCount = 50;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("the HTTP server has no TCP address");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${address.port}`,
    listening: `${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
