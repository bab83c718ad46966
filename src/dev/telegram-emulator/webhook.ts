/**
 * Webhook mode: once the bot calls setWebhook, queued updates are POSTed to its URL one
 * at a time, in order, with `X-Telegram-Bot-Api-Secret-Token` when a secret was set.
 * A failed delivery is retried a few times and then given up (Telegram keeps trying for
 * longer; a test wants a bounded run). A JSON answer naming a `method` is executed, as
 * Telegram does for "webhook replies".
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Update } from "telegraf/types";
import type { WebhookSnapshot } from "./types.js";
import type { UpdateQueue } from "./updates.js";

export interface WebhookConfig {
  readonly url: string;
  readonly secretToken: string | undefined;
}

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
  #running = false;
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

  /** Starts delivering if a webhook is set and nothing is being delivered yet. */
  kick(): void {
    if (this.#running || !this.#config || this.#abort.signal.aborted) return;
    void this.#run();
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

  async #run(): Promise<void> {
    this.#running = true;
    try {
      for (;;) {
        const config = this.#config;
        const update = this.#queue.peek();
        if (!config || !update || this.#abort.signal.aborted) return;
        await this.#deliver(config, update);
        this.#queue.remove(update.update_id);
      }
    } finally {
      this.#running = false;
    }
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
