/**
 * Webhook mode: once the bot calls setWebhook, queued updates are POSTed to its URL with
 * `X-Telegram-Bot-Api-Secret-Token` when a secret was set, as Telegram does: up to
 * `max_connections` POSTs at once (setWebhook's parameter, 1-100, default 40), but never two
 * of one chat at once, and a chat's updates in the order they came (grammY's deployment
 * guide: "Telegram will deliver updates from the same chat in sequence, and updates from
 * different chats are sent concurrently"; the Bot API reference itself only names the
 * connection limit). A failed delivery is retried a few times and then given up (Telegram
 * keeps trying for longer; a test wants a bounded run), holding its chat's later updates
 * meanwhile. A 2xx JSON answer naming a `method` is executed, as Telegram does for
 * "webhook replies" (https://core.telegram.org/bots/api#making-requests-when-getting-updates),
 * and recorded as a call; Telegram also reads form-encoded and multipart answers, which no
 * bot here sends. Telegram acknowledges the update first and runs the method beside the
 * chat's next delivery; here the chat's next update waits for it (microseconds).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Update } from "telegraf/types";
import type { WebhookSnapshot } from "./types.js";
import type { UpdateQueue } from "./updates.js";

export interface WebhookConfig {
  readonly url: string;
  readonly secretToken: string | undefined;
  /** Most POSTs in flight at once (setWebhook's `max_connections`). */
  readonly maxConnections: number;
}

/** setWebhook's `max_connections` when the bot leaves it out. */
export const DEFAULT_MAX_CONNECTIONS = 40;
/** Telegram's range for `max_connections`. */
export const MAX_CONNECTIONS_RANGE = { min: 1, max: 100 } as const;

export interface WebhookDeliveryOptions {
  readonly retryDelayMs: number;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
}

/** Runs a method a webhook answer asked for; its result goes nowhere, as with Telegram. */
export type WebhookReplyHandler = (
  method: string,
  params: Record<string, unknown>,
) => Promise<void>;

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "Read timeout expired";
  const cause: unknown = error.cause;
  if (cause instanceof Error && "code" in cause && cause.code === "ECONNREFUSED") {
    return "Connection refused";
  }
  return error.message;
}

function idOf(value: unknown): number | undefined {
  if (typeof value !== "object" || value === null || !("id" in value)) return undefined;
  return typeof value.id === "number" ? value.id : undefined;
}

/**
 * Which conversation an update belongs to, for in-order delivery: its chat (a callback
 * query's: its message's), else its sender (an inline query has no chat), else none.
 */
export function orderingKey(update: Update): string | undefined {
  for (const [field, payload] of Object.entries(update)) {
    if (field === "update_id" || typeof payload !== "object" || payload === null) continue;
    const chat = "chat" in payload ? idOf(payload.chat) : undefined;
    if (chat !== undefined) return `chat:${chat}`;
    const message = "message" in payload ? payload.message : undefined;
    if (typeof message === "object" && message !== null && "chat" in message) {
      const messageChat = idOf(message.chat);
      if (messageChat !== undefined) return `chat:${messageChat}`;
    }
    const from =
      "from" in payload ? idOf(payload.from) : "user" in payload ? idOf(payload.user) : undefined;
    if (from !== undefined) return `user:${from}`;
  }
  return undefined;
}

function parseReply(text: string): { method: string; params: Record<string, unknown> } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || !("method" in body)) return undefined;
  const { method, ...params } = body;
  return typeof method === "string" ? { method, params } : undefined;
}

export class WebhookDelivery {
  #config: WebhookConfig | undefined;
  /** Updates being POSTed (attempts and retry pauses included), by id. */
  readonly #inFlight = new Set<number>();
  /** Conversations with an update in flight: their next update waits. */
  readonly #busyKeys = new Set<string>();
  #deliveredCount = 0;
  #lastError: { message: string; date: number } | undefined;
  readonly #abort = new AbortController();
  readonly #queue: UpdateQueue;
  readonly #options: WebhookDeliveryOptions;
  readonly #onReply: WebhookReplyHandler;

  constructor(queue: UpdateQueue, options: WebhookDeliveryOptions, onReply: WebhookReplyHandler) {
    this.#queue = queue;
    this.#options = options;
    this.#onReply = onReply;
  }

  get active(): boolean {
    return this.#config !== undefined;
  }

  set(config: WebhookConfig): void {
    this.#config = config;
    this.#lastError = undefined;
    this.kick();
  }

  clear(): void {
    this.#config = undefined;
  }

  /**
   * Starts POSTing the oldest queued updates whose conversation has none in flight, up to
   * the webhook's connection limit; runs again whenever an update arrives or a POST ends.
   */
  kick(): void {
    const config = this.#config;
    if (!config || this.#abort.signal.aborted) return;
    // An update whose conversation is busy blocks that conversation's later ones too, since
    // the busy key stays set until its own delivery ends.
    for (const update of this.#queue.deliverable()) {
      if (this.#inFlight.size >= config.maxConnections) return;
      if (this.#inFlight.has(update.update_id)) continue;
      const key = orderingKey(update);
      if (key !== undefined && this.#busyKeys.has(key)) continue;
      this.#start(config, update, key);
    }
  }

  snapshot(): WebhookSnapshot {
    return {
      url: this.#config?.url ?? "",
      secretToken: this.#config?.secretToken,
      pendingUpdateCount: this.#queue.pendingCount,
      deliveredCount: this.#deliveredCount,
      lastErrorMessage: this.#lastError?.message,
      lastErrorDate: this.#lastError?.date,
    };
  }

  /** Stops delivery for good: an in-flight POST is aborted. */
  close(): void {
    this.#config = undefined;
    this.#abort.abort();
  }

  #start(config: WebhookConfig, update: Update, key: string | undefined): void {
    this.#inFlight.add(update.update_id);
    if (key !== undefined) this.#busyKeys.add(key);
    void this.#deliver(config, update).finally(() => {
      this.#queue.remove(update.update_id);
      this.#inFlight.delete(update.update_id);
      if (key !== undefined) this.#busyKeys.delete(key);
      this.kick();
    });
  }

  async #deliver(config: WebhookConfig, update: Update): Promise<void> {
    for (let attempt = 1; attempt <= this.#options.maxAttempts; attempt += 1) {
      try {
        await this.#post(config, update);
        this.#deliveredCount += 1;
        return;
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        this.#lastError = { message: describeFailure(error), date: Math.floor(Date.now() / 1000) };
      }
      if (attempt < this.#options.maxAttempts) {
        await sleep(this.#options.retryDelayMs, undefined, { signal: this.#abort.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  async #post(config: WebhookConfig, update: Update): Promise<void> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (config.secretToken !== undefined) {
      headers["x-telegram-bot-api-secret-token"] = config.secretToken;
    }
    const signal = AbortSignal.any([
      this.#abort.signal,
      AbortSignal.timeout(this.#options.timeoutMs),
    ]);
    const response = await fetch(config.url, {
      method: "POST",
      headers,
      body: JSON.stringify(update),
      signal,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`Wrong response from the webhook: ${response.status} ${response.statusText}`);
    }
    const reply = parseReply(text);
    if (reply) await this.#onReply(reply.method, reply.params);
  }
}
