/**
 * A press's answer carried in the HTTP reply to Telegram's webhook POST rather than in a
 * call of its own. Telegram runs one Bot API method named in that reply ("making requests
 * when getting updates", https://core.telegram.org/bots/api#making-requests-when-getting-updates),
 * but nobody learns its result, so only `answerCallbackQuery` goes there: its result is
 * `true` and nothing is stored from it. The HTTP server (src/http/telegram-reply.ts) holds a
 * callback query's POST for a short bound and attaches its reply to the update; the bot's
 * context (context.ts) offers its first answer to it.
 */

/** answerCallbackQuery's parameters, as the Bot API takes them. */
export interface CallbackAnswerPayload {
  callback_query_id: string;
  text?: string;
  show_alert?: boolean;
  url?: string;
  cache_time?: number;
}

export interface WebhookReply {
  /**
   * Puts the answer in the webhook's reply when it is still open and for this update's
   * query (true: Telegram will run it, with no result we can read); false: make the call.
   */
  answerCallbackQuery(payload: CallbackAnswerPayload): boolean;
}

/** The reply open for an update, by the update object Telegraf hands the context. */
const replies = new WeakMap<object, WebhookReply>();

export function attachWebhookReply(update: object, reply: WebhookReply): void {
  replies.set(update, reply);
}

export function webhookReplyFor(update: object): WebhookReply | undefined {
  return replies.get(update);
}
