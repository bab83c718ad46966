/**
 * How the bot reaches the Bot API: Telegraf's own client, over an HTTP agent that gives up
 * on a call Telegram leaves unanswered. Telegraf itself waits up to 500 s for an answer;
 * a call hanging that long would hold a Confirm for minutes and outlast the notifier's
 * lease on a notice, so that another replica would send the notice a second time.
 */
import { type ClientRequestArgs, Agent as HttpAgent, STATUS_CODES } from "node:http";
import { Agent as HttpsAgent, type RequestOptions } from "node:https";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Telegram, TelegramError } from "telegraf";
import type { Telegram as ApiMethods, Opts } from "telegraf/types";
import { Pool } from "undici";
import { z } from "zod";
import { type Metrics, NO_METRICS } from "../../metrics/metrics.js";
import { TelegramPacer } from "./pacing.js";

/** Every Bot API call but the long poll is answered within this, or fails. */
export const TELEGRAM_CALL_TIMEOUT_MS = 10_000;

/** A call Telegram did not answer in time. It may still have been carried out. */
export class TelegramTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`Telegram did not answer within ${timeoutMs} ms`);
    this.name = "TelegramTimeoutError";
  }
}

/** A socket that is silent for `timeoutMs` while a call waits on it is destroyed. */
function arm<S extends Duplex | null | undefined>(stream: S, timeoutMs: number): S {
  if (stream instanceof Socket) {
    stream.setTimeout(timeoutMs);
    stream.on("timeout", () => stream.destroy(new TelegramTimeoutError(timeoutMs)));
  }
  return stream;
}

class DeadlineHttpAgent extends HttpAgent {
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    // `timeout` makes the agent set the socket timeout again each time it reuses a socket.
    super({ keepAlive: true, keepAliveMsecs: 10_000, timeout: timeoutMs });
    this.#timeoutMs = timeoutMs;
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ) {
    return arm(super.createConnection(options, callback), this.#timeoutMs);
  }
}

class DeadlineHttpsAgent extends HttpsAgent {
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    super({ keepAlive: true, keepAliveMsecs: 10_000, timeout: timeoutMs });
    this.#timeoutMs = timeoutMs;
  }

  override createConnection(
    options: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ) {
    return arm(super.createConnection(options, callback), this.#timeoutMs);
  }
}

/** An agent for `apiRoot` (http or https) whose calls fail after `timeoutMs` of silence. */
export function deadlineAgent(apiRoot: string, timeoutMs: number): HttpAgent {
  return new URL(apiRoot).protocol === "https:"
    ? new DeadlineHttpsAgent(timeoutMs)
    : new DeadlineHttpAgent(timeoutMs);
}

/** True when a payload carries a file to upload (then it goes as multipart, by Telegraf). */
function carriesFile(payload: object): boolean {
  return Object.entries(payload).some(([key, value]) => {
    if (key === "link_preview_options" || value === null || typeof value !== "object") return false;
    if (Array.isArray(value)) return value.some((item) => isFileLike(item?.media));
    return isFileLike(value) || isFileLike(Reflect.get(value, "media"));
  });
}

function isFileLike(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (Boolean(Reflect.get(value, "source")) || Boolean(Reflect.get(value, "url")))
  );
}

/** Telegraf leaves null and undefined fields out of a JSON payload; so do we. */
function dropNulls(_key: string, value: unknown): unknown {
  return value ?? undefined;
}

const BotApiAnswerSchema = z.union([
  z.looseObject({ ok: z.literal(true), result: z.unknown().optional() }),
  z.looseObject({
    ok: z.literal(false),
    error_code: z.number(),
    description: z.string(),
    parameters: z.looseObject({ retry_after: z.number().optional() }).optional(),
  }),
]);

/**
 * Telegraf's client with a leaner transport: JSON calls go over an undici pool (keep-alive,
 * a deadline per call) instead of node-fetch, and answer as Telegraf does (the result, or
 * a TelegramError with the answer and what was called). Uploads still go through Telegraf.
 */
type CallApiOptions = NonNullable<Parameters<Telegram["callApi"]>[2]>;

/** How a client keeps Telegram's limits (see telegram-pacing.ts). */
export interface TelegramPacing {
  /** Shared by every client of the process; default: one of the client's own. */
  pacer?: TelegramPacer;
  /** Held to the rate across chats: the client of notices sent to many people. */
  broadcast?: boolean;
  /** Failed calls are counted here, by method and error code. Default: none. */
  metrics?: Metrics;
  /** Sees every call of this client (the merchant it speaks for: telegram/merchant-tag.ts). */
  tag?: TelegramCallTag;
}

/**
 * A client's calls as one merchant's (MERCHANTS_FILE): `before` may give the payload to send
 * instead (its text naming the merchant), `after` sees what Telegram answered.
 */
export interface TelegramCallTag {
  before(method: string, payload: object): Promise<object | undefined>;
  after(method: string, payload: object, result: unknown): Promise<void>;
}

class UndiciTelegram extends Telegram {
  readonly #pool: Pool;
  readonly #path: string;
  readonly #timeoutMs: number;
  readonly #pacer: TelegramPacer;
  readonly #broadcast: boolean;
  readonly #metrics: Metrics;
  readonly #tag: TelegramCallTag | undefined;

  constructor(token: string, apiRoot: string, timeoutMs: number, pacing: TelegramPacing) {
    super(token, { apiRoot, webhookReply: false });
    const root = new URL(apiRoot);
    this.#pool = new Pool(root.origin, { keepAliveTimeout: 10_000, connections: 16 });
    this.#path = `${root.pathname.replace(/\/$/, "")}/bot${token}/`;
    this.#timeoutMs = timeoutMs;
    this.#pacer = pacing.pacer ?? new TelegramPacer();
    this.#broadcast = pacing.broadcast ?? false;
    this.#metrics = pacing.metrics ?? NO_METRICS;
    this.#tag = pacing.tag;
  }

  /** See `goesAtOnce` below. */
  goesAtOnce(method: string, payload: object): boolean {
    return this.#pacer.goesAtOnce(method, payload);
  }

  /**
   * Waits for the call's turn (Telegram's limits, a 429's `retry_after`), makes it, and
   * remembers a 429's `retry_after` for the calls after it.
   */
  override async callApi<M extends keyof ApiMethods>(
    method: M,
    payload: Opts<M>,
    options: CallApiOptions = {},
  ): Promise<ReturnType<ApiMethods[M]>> {
    // Telegraf types its signal as a polyfill's; at run time it is Node's own.
    const signal = options.signal instanceof AbortSignal ? options.signal : undefined;
    const tag = this.#tag;
    if (tag) {
      const tagged = await tag.before(method, payload);
      if (tagged) payload = { ...payload, ...tagged };
    }
    await this.#pacer.before(method, payload, this.#broadcast, signal);
    try {
      const result = await this.#call(method, payload, options, signal);
      if (tag) await tag.after(method, payload, result);
      return result;
    } catch (error) {
      this.#metrics.telegramError(method, errorCode(error));
      const retryAfter = error instanceof TelegramError ? error.parameters?.retry_after : undefined;
      if (error instanceof TelegramError && error.code === 429 && retryAfter !== undefined) {
        this.#pacer.refused(payload, retryAfter);
      }
      throw error;
    }
  }

  async #call<M extends keyof ApiMethods>(
    method: M,
    payload: Opts<M>,
    options: CallApiOptions,
    signal: AbortSignal | undefined,
  ): Promise<ReturnType<ApiMethods[M]>> {
    if (carriesFile(payload)) return super.callApi(method, payload, options);
    const { statusCode, body } = await this.#pool
      .request({
        method: "POST",
        path: `${this.#path}${method}`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload, dropNulls),
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
        ...(signal ? { signal } : {}),
      })
      .catch((error: unknown) => {
        throw new TelegramTimeoutOrNetworkError(method, error, this.#timeoutMs);
      });
    const text = await body.text();
    const json = parseJson(text);
    if (statusCode >= 500) {
      const refusal = BotApiAnswerSchema.safeParse(json);
      if (refusal.success && !refusal.data.ok) {
        throw new TelegramError(refusal.data, { method, payload });
      }
      // Not a Bot API answer: the status, and what the server said if it said something
      // ("API method 'setMyCommands' is not supported").
      const status = STATUS_CODES[statusCode] ?? "Server Error";
      const said = serverSaid(json, text);
      const description = said && said !== status ? `${status}: ${said}` : status;
      throw new TelegramError({ error_code: statusCode, description }, { method, payload });
    }
    if (json === undefined) throw new BotApiAnswerError(method, "not_json", text);
    // The common answer, read as BotApiAnswerSchema reads it without a zod pass per call.
    if (isSuccess(json)) return Reflect.get(json, "result") as ReturnType<ApiMethods[M]>;
    const answer = BotApiAnswerSchema.safeParse(json);
    if (!answer.success) throw new BotApiAnswerError(method, "not_bot_api", text);
    if (!answer.data.ok) throw new TelegramError(answer.data, { method, payload });
    // The Bot API answers each method with its own result type, as Telegraf trusts it too.
    return answer.data.result as ReturnType<ApiMethods[M]>;
  }
}

/**
 * Whether a call of `method` may skip the client and travel in a webhook's reply
 * (webhook-reply.ts): when the client's pacer would let it go at once. A reply's failure is
 * never seen, so a call that would wait for a 429's retry_after goes as a call, in its turn.
 */
export function goesAtOnce(telegram: Telegram, method: string, payload: object): boolean {
  return telegram instanceof UndiciTelegram ? telegram.goesAtOnce(method, payload) : true;
}

/** A failed call's code for the metrics: Telegram's error code, or how it failed without one. */
function errorCode(error: unknown): string {
  if (error instanceof TelegramError) return String(error.code);
  if (error instanceof BotApiAnswerError) return error.kind;
  if (error instanceof Error && error.name === "TelegramTimeoutError") return "timeout";
  if (error instanceof Error && error.name === "AbortError") return "aborted";
  return "network";
}

/** `{ ok: true, … }`: what BotApiAnswerSchema's first branch accepts, whatever `result` is. */
function isSuccess(json: unknown): json is object {
  return (
    typeof json === "object" &&
    json !== null &&
    !Array.isArray(json) &&
    Reflect.get(json, "ok") === true
  );
}

/** The words of a failed answer: its `description` or `message`, or a short plain body. */
const SaidSchema = z.union([
  z.looseObject({ description: z.string().min(1) }).transform((body) => body.description),
  z.looseObject({ message: z.string().min(1) }).transform((body) => body.message),
]);

function serverSaid(json: unknown, text: string): string | undefined {
  const said = SaidSchema.safeParse(json);
  if (said.success) return said.data.replace(/\s+/g, " ").trim().slice(0, 300);
  const plain = text.replace(/\s+/g, " ").trim();
  // An HTML error page says nothing a log line can use.
  return plain === "" || plain.startsWith("<") ? undefined : plain.slice(0, 300);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An answer that is not JSON, or JSON that is not a Bot API answer (not Telegram there). */
export class BotApiAnswerError extends Error {
  readonly kind: "not_json" | "not_bot_api";
  /** What was answered, as it came (the caller redacts and shortens it). */
  readonly body: string;

  constructor(method: string, kind: "not_json" | "not_bot_api", body: string) {
    super(
      `Telegram answered ${method} with ${kind === "not_json" ? "a body that is not JSON" : "something that is not a Bot API answer"}`,
    );
    this.name = "BotApiAnswerError";
    this.kind = kind;
    this.body = body;
  }
}

/** No answer could be read: the deadline passed, or the connection failed. */
class TelegramTimeoutOrNetworkError extends Error {
  constructor(method: string, cause: unknown, timeoutMs: number) {
    const timedOut =
      cause instanceof Error && /Timeout/i.test(`${cause.name} ${Reflect.get(cause, "code")}`);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      timedOut
        ? `Telegram did not answer ${method} within ${timeoutMs} ms`
        : `Telegram could not be reached for ${method} (${reason})`,
      { cause },
    );
    this.name = timedOut ? "TelegramTimeoutError" : "TelegramNetworkError";
  }
}

/**
 * A Telegraf client for `apiRoot` whose calls end within `timeoutMs` once sent (a call may
 * first wait up to its pacer's `maxWaitMs` for its turn under Telegram's limits). Replies
 * go out as API calls we can await and check, never in a webhook's answer.
 */
export function boundedTelegram(
  token: string,
  apiRoot: string,
  timeoutMs = TELEGRAM_CALL_TIMEOUT_MS,
  pacing: TelegramPacing = {},
): Telegram {
  const telegram = new UndiciTelegram(token, apiRoot, timeoutMs, pacing);
  // Uploads go through Telegraf itself: set after construction, since Telegraf drops any
  // agent given for an http:// root (its default agent speaks https). Ours fits the root's
  // protocol, so the local emulator gets it too.
  telegram.options.agent = deadlineAgent(apiRoot, timeoutMs);
  return telegram;
}

/**
 * A client for long polling: a `getUpdates` waits up to `pollTimeoutSeconds` by design, so
 * its deadline is that plus a margin.
 */
export function longPollTelegram(
  token: string,
  apiRoot: string,
  pollTimeoutSeconds: number,
  metrics?: Metrics,
) {
  return boundedTelegram(token, apiRoot, (pollTimeoutSeconds + 10) * 1000, {
    ...(metrics ? { metrics } : {}),
  });
}
