/**
 * The emulator's HTTP server: routes `/bot<token>/<method>` to the method handlers and
 * `/file/bot<token>/<path>` to stored files, with Telegram's answers for a wrong token
 * (401), an unknown method (404) and injected failures.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { EmulatorCore } from "./core.js";
import {
  describeParams,
  type ParsedRequest,
  readBotApiRequest,
  sendError,
  sendJson,
  sendResult,
} from "./http.js";
import { MESSAGE_METHODS, type MethodHandler } from "./methods.js";
import { BOT_METHODS } from "./methods-bot.js";
import { BotApiError } from "./types.js";
import { WEBAPP_METHODS } from "./webapp.js";

/** Telegram's method names are case-insensitive. */
const HANDLERS: ReadonlyMap<string, MethodHandler> = new Map(
  Object.entries({ ...MESSAGE_METHODS, ...BOT_METHODS, ...WEBAPP_METHODS }).map(
    ([name, handler]) => [name.toLowerCase(), handler],
  ),
);

/** What Telegram does not run when a webhook's answer asks for it (lower case). */
const REFUSED_IN_WEBHOOK_REPLY: ReadonlySet<string> = new Set([
  "setwebhook",
  "deletewebhook",
  "close",
  "logout",
]);

const API_PATH = /^\/bot([^/]+)\/([^/]+)$/;
const FILE_PATH = /^\/file\/bot([^/]+)\/(.+)$/;
/** Connections still open this long after close() are cut. */
const CLOSE_GRACE_MS = 500;

function toBotApiError(error: unknown): BotApiError {
  if (error instanceof BotApiError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new BotApiError(500, `Internal Server Error: ${detail}`);
}

export class BotApiServer {
  readonly #core: EmulatorCore;
  readonly #server: Server;
  #apiRoot = "";

  constructor(core: EmulatorCore) {
    this.#core = core;
    this.#server = createServer((req, res) => {
      void this.#handle(req, res);
    });
  }

  /** `http://host:port` once listening. */
  get apiRoot(): string {
    return this.#apiRoot;
  }

  async listen(host: string, port: number): Promise<void> {
    this.#server.listen(port, host);
    await once(this.#server, "listening");
    const address = this.#server.address();
    if (typeof address !== "object" || address === null) throw new Error("no server address");
    const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
    this.#apiRoot = `http://${hostText}:${address.port}`;
  }

  /** Waits for open requests briefly, then cuts whatever connection is left. */
  async close(): Promise<void> {
    // Lets long polls that were just answered write their [] before connections go.
    await new Promise((resolve) => setImmediate(resolve));
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    const force = setTimeout(() => this.#server.closeAllConnections(), CLOSE_GRACE_MS);
    try {
      await closed;
    } finally {
      clearTimeout(force);
    }
  }

  /**
   * Runs a method a webhook answer asked for, recorded as a call made in a webhook reply;
   * its outcome is dropped, as on Telegram. The methods Telegram's server refuses there
   * (telegram-bot-api's WebhookActor: `get…`, setWebhook, deleteWebhook, close, logOut)
   * are neither run nor recorded.
   */
  async runWebhookReply(method: string, params: Record<string, unknown>): Promise<void> {
    const name = method.toLowerCase();
    if (name.startsWith("get") || REFUSED_IN_WEBHOOK_REPLY.has(name)) return;
    const request: ParsedRequest = { params, files: new Map() };
    await this.#dispatch(method, request, new AbortController().signal, true).catch(
      () => undefined,
    );
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://emulator.invalid");
    const api = API_PATH.exec(url.pathname);
    if (api) return this.#handleApi(req, res, url, api[1] ?? "", api[2] ?? "");
    const file = FILE_PATH.exec(url.pathname);
    if (file && req.method === "GET") return this.#handleFile(res, file[1] ?? "", file[2] ?? "");
    sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
  }

  async #handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    token: string,
    method: string,
  ): Promise<void> {
    const clientGone = new AbortController();
    res.on("close", () => clientGone.abort());
    try {
      if (token !== this.#core.options.token) throw new BotApiError(401, "Unauthorized");
      const request = await readBotApiRequest(req, url);
      sendResult(res, await this.#dispatch(method, request, clientGone.signal));
    } catch (error) {
      sendError(res, toBotApiError(error));
    }
  }

  /** Records the call, applies an injected failure if one is queued, else runs the method. */
  async #dispatch(
    method: string,
    request: ParsedRequest,
    signal: AbortSignal,
    viaWebhookReply?: true,
  ): Promise<unknown> {
    const handler = HANDLERS.get(method.toLowerCase());
    if (!handler) throw new BotApiError(404, "Not Found: method not found");
    const params = describeParams(request);
    const atMs = Date.now();
    this.#core.recordCall({
      method,
      params,
      atMs,
      ...(viaWebhookReply ? { viaWebhookReply } : {}),
    });
    try {
      const delayMs = this.#core.takeDelay(method);
      // A slow Telegram: the call is recorded at once and answered late.
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const failure = this.#core.takeFailure(method, params);
      if (failure) throw failure;
      return await handler({ core: this.#core, request, signal });
    } catch (error) {
      const apiError = toBotApiError(error);
      this.#core.recordError(method, apiError);
      throw apiError;
    }
  }

  #handleFile(res: ServerResponse, token: string, filePath: string): void {
    if (token !== this.#core.options.token) {
      sendError(res, new BotApiError(401, "Unauthorized"));
      return;
    }
    // A malformed escape (`%zz`) names no file: answer 404 rather than throw out of the route.
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(filePath);
    } catch {
      decoded = undefined;
    }
    const file = decoded === undefined ? undefined : this.#core.fileByPath(decoded);
    if (!file) {
      sendError(res, new BotApiError(404, "Not Found"));
      return;
    }
    res.writeHead(200, { "content-type": file.mimeType, "content-length": file.bytes.length });
    res.end(file.bytes, () => this.#core.recordDownload(file.filePath));
  }
}
