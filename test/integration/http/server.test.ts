import { connect, type Socket } from "node:net";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import {
  type HttpServerHandle,
  type HttpServerOptions,
  MAX_BODY_BYTES,
  startHttpServer,
} from "../../../src/http/server.js";
import { silentLogger } from "../../../src/logger.js";
import type { CallbackRequest } from "../../../src/payouts/webhook.js";

const PAYMENT_PATH = "/webhooks/payments";
const TELEGRAM_PATH = "/telegram/hook";
const SECRET = "s3cret-token_value";

interface Recorded {
  callbacks: CallbackRequest[];
  updates: unknown[];
}

let handle: HttpServerHandle | undefined;

afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

async function start(overrides: Partial<HttpServerOptions> = {}): Promise<{
  server: HttpServerHandle;
  recorded: Recorded;
}> {
  const recorded: Recorded = { callbacks: [], updates: [] };
  const server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    health: async () => true,
    paymentWebhook: {
      path: PAYMENT_PATH,
      receive: async (callback) => {
        recorded.callbacks.push(callback);
        return { status: 202, body: { ok: true } };
      },
    },
    telegramWebhook: {
      path: TELEGRAM_PATH,
      secret: SECRET,
      handleUpdate: async (update) => {
        recorded.updates.push(update);
      },
    },
    ...overrides,
  });
  handle = server;
  return { server, recorded };
}

async function call(
  server: HttpServerHandle,
  method: "GET" | "POST" | "HEAD",
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown }> {
  const response = await request(`${server.url}${path}`, {
    method,
    body: options.body,
    headers: options.headers,
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.statusCode, json };
}

/** Writes raw bytes on a fresh connection and collects what comes back until it closes. */
function rawExchange(server: HttpServerHandle, write: (socket: Socket) => void): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    // A reset after the answer is fine: the answer is what is checked.
    socket.on("error", () => resolve(received));
    socket.on("close", () => resolve(received));
    socket.on("connect", () => write(socket));
  });
}

function statusLine(raw: string): string {
  return raw.split("\r\n")[0] ?? "";
}

describe("startHttpServer", () => {
  it("answers /healthz with 200 while the bot can work", async () => {
    const { server } = await start();
    expect(await call(server, "GET", "/healthz")).toEqual({ status: 200, json: { ok: true } });
  });

  it("answers /healthz with 503 when the health check says no", async () => {
    const { server } = await start({ health: async () => false });
    expect(await call(server, "GET", "/healthz")).toEqual({ status: 503, json: { ok: false } });
  });

  it("answers /healthz with 503 when the health check throws", async () => {
    const { server } = await start({
      health: async () => {
        throw new Error("redis is gone");
      },
    });
    expect((await call(server, "GET", "/healthz")).status).toBe(503);
  });

  it("answers 404 on any other path", async () => {
    const { server } = await start();
    const answer = await call(server, "GET", "/admin");
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ ok: false, error: "not found" });
  });

  it("answers 405 to a GET on the payment webhook and passes nothing on", async () => {
    const { server, recorded } = await start();
    const answer = await call(server, "GET", PAYMENT_PATH);
    expect(answer).toEqual({ status: 405, json: { ok: false, error: "use POST" } });
    expect(recorded.callbacks).toHaveLength(0);
  });

  it("hands a payment callback on with its body, path, query and signature headers", async () => {
    const { server, recorded } = await start();
    const answer = await call(server, "POST", `${PAYMENT_PATH}?x=1`, {
      body: '{"id":"pay_1"}',
      headers: { "content-type": "application/json", "x-sig": "abc", "x-sig-timestamp": "123" },
    });
    expect(answer.status).toBe(202);
    expect(recorded.callbacks).toEqual([
      {
        body: '{"id":"pay_1"}',
        pathAndQuery: `${PAYMENT_PATH}?x=1`,
        signature: "abc",
        timestamp: "123",
      },
    ]);
  });

  it("refuses a body declared over 64 KiB with 413 without reading it", async () => {
    const { server, recorded } = await start();
    const size = MAX_BODY_BYTES + 1;
    const raw = await rawExchange(server, (socket) => {
      socket.write(
        `POST ${PAYMENT_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      socket.write("x".repeat(1024));
    });
    expect(statusLine(raw)).toBe("HTTP/1.1 413 Payload Too Large");
    expect(raw).toContain(`body over ${MAX_BODY_BYTES} bytes`);
    expect(recorded.callbacks).toHaveLength(0);
  });

  it("refuses a chunked body that grows over 64 KiB with 413", async () => {
    const { server, recorded } = await start();
    const raw = await rawExchange(server, (socket) => {
      socket.write(
        `POST ${PAYMENT_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = "y".repeat(16 * 1024);
      for (let i = 0; i < 6; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    expect(statusLine(raw)).toBe("HTTP/1.1 413 Payload Too Large");
    expect(recorded.callbacks).toHaveLength(0);
  });

  it("refuses Telegram webhook calls without the secret token header", async () => {
    const { server, recorded } = await start();
    const answer = await call(server, "POST", TELEGRAM_PATH, { body: '{"update_id":1}' });
    expect(answer.status).toBe(401);
    expect(recorded.updates).toHaveLength(0);
  });

  it("refuses Telegram webhook calls with a wrong secret token", async () => {
    const { server, recorded } = await start();
    for (const wrong of ["nope", `${SECRET}x`, SECRET.slice(0, -1)]) {
      const answer = await call(server, "POST", TELEGRAM_PATH, {
        body: '{"update_id":1}',
        headers: { "x-telegram-bot-api-secret-token": wrong },
      });
      expect(answer.status).toBe(401);
    }
    expect(recorded.updates).toHaveLength(0);
  });

  it("takes a Telegram update with the right secret token and hands it on", async () => {
    const { server, recorded } = await start();
    const update = { update_id: 7, message: { message_id: 1, text: "/help" } };
    const answer = await call(server, "POST", TELEGRAM_PATH, {
      body: JSON.stringify(update),
      headers: { "x-telegram-bot-api-secret-token": SECRET, "content-type": "application/json" },
    });
    expect(answer.status).toBe(200);
    await expect.poll(() => recorded.updates).toEqual([update]);
  });

  it("answers 400 to malformed JSON on the Telegram webhook", async () => {
    const { server, recorded } = await start();
    const answer = await call(server, "POST", TELEGRAM_PATH, {
      body: "{not json",
      headers: { "x-telegram-bot-api-secret-token": SECRET },
    });
    expect(answer).toEqual({ status: 400, json: { ok: false, error: "body is not JSON" } });
    expect(recorded.updates).toHaveLength(0);
  });

  it("cuts off a client whose body trickles and never ends, while answering others", async () => {
    const { server, recorded } = await start({
      timeouts: { requestTimeoutMs: 300, headersTimeoutMs: 200, connectionsCheckingIntervalMs: 50 },
    });
    let trickle: NodeJS.Timeout | undefined;
    const slow = rawExchange(server, (socket) => {
      socket.write(
        `POST ${PAYMENT_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      trickle = setInterval(() => {
        if (!socket.destroyed) socket.write(" ");
      }, 20);
    });
    // The server keeps answering everyone else while the slow client hangs on.
    expect((await call(server, "GET", "/healthz")).status).toBe(200);
    const raw = await slow;
    clearInterval(trickle);
    expect(statusLine(raw)).toBe("HTTP/1.1 408 Request Timeout");
    expect(recorded.callbacks).toHaveLength(0);
  });

  it("cuts off a client that never finishes its headers", async () => {
    const { server } = await start({
      timeouts: { requestTimeoutMs: 300, headersTimeoutMs: 200, connectionsCheckingIntervalMs: 50 },
    });
    const raw = await rawExchange(server, (socket) => {
      socket.write(`POST ${PAYMENT_PATH} HTTP/1.1\r\nHost: x\r\n`);
    });
    expect(statusLine(raw)).toBe("HTTP/1.1 408 Request Timeout");
    expect((await call(server, "GET", "/healthz")).status).toBe(200);
  });
});
