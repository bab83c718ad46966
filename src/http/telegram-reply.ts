/**
 * The HTTP side of a press's answer in the webhook's reply (bot/telegram/webhook-reply.ts).
 * A callback query's POST is held for at most `withinMs`: the bot's first answer to that
 * query within it is written as the reply (`{"method":"answerCallbackQuery",…}`, which
 * Telegram runs), and at the bound, or when the handler ends without answering, the reply
 * is `200 {"ok":true}` and a later answer goes out as a call, as before. Either way the POST
 * gets a 200 within the bound, far inside Telegram's wait, so nothing is delivered again,
 * and a chat's next update (Telegram sends a chat's updates one at a time) waits at most
 * the bound. Updates other than callback queries are answered at once (server.ts).
 */
import type { ServerResponse } from "node:http";
import type { CallbackAnswerPayload, WebhookReply } from "../bot/telegram/webhook-reply.js";

/** The id of the callback query an update carries, if it is one. */
export function callbackQueryIdOf(update: unknown): string | undefined {
  if (typeof update !== "object" || update === null || !("callback_query" in update)) {
    return undefined;
  }
  const query = update.callback_query;
  if (typeof query !== "object" || query === null || !("id" in query)) return undefined;
  return typeof query.id === "string" ? query.id : undefined;
}

function writeJson(response: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

export class HeldWebhookReply implements WebhookReply {
  readonly #response: ServerResponse;
  readonly #queryId: string;
  #timer: NodeJS.Timeout | undefined;

  constructor(response: ServerResponse, queryId: string, withinMs: number) {
    this.#response = response;
    this.#queryId = queryId;
    this.#timer = setTimeout(() => this.close(), withinMs);
    // A connection gone (Telegram gave up, the server shuts down) has nothing to answer.
    response.once("close", () => this.#stop());
  }

  answerCallbackQuery(payload: CallbackAnswerPayload): boolean {
    if (!this.#open() || payload.callback_query_id !== this.#queryId) return false;
    this.#stop();
    writeJson(this.#response, { method: "answerCallbackQuery", ...payload });
    return true;
  }

  /** Answers 200 with nothing to run, unless the reply already went. */
  close(): void {
    if (!this.#open()) return;
    this.#stop();
    writeJson(this.#response, { ok: true });
  }

  #open(): boolean {
    return this.#timer !== undefined && !this.#response.headersSent && !this.#response.destroyed;
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
