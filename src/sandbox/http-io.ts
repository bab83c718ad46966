/**
 * Small HTTP helpers shared by the API and the admin surface: read a bounded body, build
 * HttpError answers, write JSON.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** An answer before serialization. A string `body` is sent verbatim (faults use it). */
export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Spec section 2.5: the body of every error response. */
export function httpError(
  status: number,
  message: string,
  details: unknown[] = [],
  headers?: Record<string, string>,
): ApiResponse {
  return { status, body: { message, statusCode: status, details }, headers };
}

export function ok(body: unknown, status = 200): ApiResponse {
  return { status, body };
}

export function bodyText(response: ApiResponse): string {
  return typeof response.body === "string" ? response.body : JSON.stringify(response.body);
}

export interface ReadBody {
  text: string;
  tooLarge: boolean;
}

/**
 * Reads the request to its end, keeping at most `limitBytes`. A larger body is drained
 * (so the client can read our 413 instead of a reset) up to 16× the limit, past which
 * the socket is destroyed: nobody may stream an endless body at us.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else if (size > limitBytes * 16) req.socket.destroy();
    });
    req.on("end", () => {
      const tooLarge = size > limitBytes;
      resolve({ text: tooLarge ? "" : Buffer.concat(chunks).toString("utf8"), tooLarge });
    });
    req.on("error", reject);
    req.on("close", () => {
      if (!req.complete) reject(new Error("request closed before its end"));
    });
  });
}

/** `JSON.parse` that answers `undefined` instead of throwing. */
export function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Writes a complete answer; `text` is the exact body that was signed, if signed. */
export function writeResponse(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Loopback addresses, including IPv4 mapped into IPv6. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === "::1" || /^(::ffff:)?127\./.test(address);
}

/** A path pattern (one optional capture group) and its handler per method. */
export interface Route<Handler> {
  pattern: RegExp;
  methods: Readonly<Record<string, Handler>>;
}

export type RouteMatch<Handler> =
  | { handler: Handler; param: string; refusal?: undefined }
  | { refusal: ApiResponse };

/** The handler for `method` on `path`, or the 404 / 405 to answer instead. */
export function findRoute<Handler>(
  routes: readonly Route<Handler>[],
  method: string,
  path: string,
): RouteMatch<Handler> {
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    // hasOwn: a method named like an Object.prototype member must not find one.
    const handler = Object.hasOwn(route.methods, method) ? route.methods[method] : undefined;
    if (handler === undefined) {
      const allowed = Object.keys(route.methods).join(", ");
      return {
        refusal: httpError(405, `method ${method} not allowed`, [{ allowed }], { allow: allowed }),
      };
    }
    return { handler, param: match[1] ?? "" };
  }
  return { refusal: httpError(404, "not found", [{ path, problem: "no such route" }]) };
}
