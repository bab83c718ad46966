/** Shared helpers of the sandbox tests: one HTTP call, a bounded wait, a callback receiver. */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { request } from "undici";
import type { SandboxHandle } from "../../../src/sandbox/index.js";

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface CallOptions {
  /** Sent as JSON unless it is a string. */
  body?: unknown;
  /** Default: the sandbox's key; `null` sends none. */
  apiKey?: string | null;
  headers?: Record<string, string>;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One request to the sandbox; resolves with whatever it answered. */
export async function call(
  sandbox: SandboxHandle,
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const apiKey = options.apiKey === undefined ? sandbox.apiKey : options.apiKey;
  const headers: Record<string, string> = { ...options.headers };
  if (apiKey !== null) headers["x-api-key"] = apiKey;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await request(`${sandbox.url}${path}`, { method, headers, body });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: parse(text) };
}

/** Polls `check` until it returns a value other than undefined (bounded; fails after). */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  limitMs = 5000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CallbackReceiver {
  url: string;
  received: ReceivedCallback[];
  close(): Promise<void>;
}

/** A local webhook receiver answering the n-th call (from 1) with `statusFor(n)`; 0 = never answer. */
export async function startReceiver(
  statusFor: (n: number) => number = () => 200,
  path = "/webhooks/payments?source=sandbox",
): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const status = statusFor(received.length);
      if (status !== 0) res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address !== "object") throw new Error("receiver has no port");
  return {
    url: `http://127.0.0.1:${address.port}${path}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
