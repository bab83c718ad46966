/**
 * Sending and editing views. Every message goes out in HTML parse mode; an edit that
 * Telegram refuses because nothing changed ("message is not modified") is not an error.
 */
import type { Telegram } from "telegraf";
import { TelegramError } from "telegraf";
import type { InlineKeyboardMarkup, Message } from "telegraf/types";
import type { BotContext } from "../context.js";
import type { View } from "../views/common.js";
import { clampHtml } from "./clamp.js";

const VIEW_OPTIONS = { parse_mode: "HTML", link_preview_options: { is_disabled: true } } as const;

/** Options of a new message: the view's keyboard, if it has one. */
function sendOptions(view: View) {
  return view.keyboard ? { ...VIEW_OPTIONS, reply_markup: view.keyboard } : VIEW_OPTIONS;
}

/** Options of an edit: a view without keyboard removes the buttons. */
function editOptions(view: View) {
  const keyboard: InlineKeyboardMarkup = view.keyboard ?? { inline_keyboard: [] };
  return { ...VIEW_OPTIONS, reply_markup: keyboard };
}

/** Replies with an HTML text (a translation from `t()`), link previews left as Telegram's default. */
export async function replyHtml(ctx: BotContext, text: string): Promise<Message.TextMessage> {
  return ctx.reply(clampHtml(text), { parse_mode: "HTML" });
}

export async function replyView(ctx: BotContext, view: View): Promise<Message.TextMessage> {
  return ctx.reply(clampHtml(view.text), sendOptions(view));
}

async function ignoringNotModified(edit: Promise<unknown>): Promise<void> {
  try {
    await edit;
  } catch (error) {
    const notModified =
      error instanceof TelegramError && /message is not modified/i.test(error.description);
    if (!notModified) throw error;
  }
}

/**
 * Whether the update names a message to edit. A callback query may come without one
 * (Telegram leaves `message` out when it is too old; some Bot API emulators send one with
 * no `message_id`).
 */
export function canEditPressed(ctx: BotContext): boolean {
  return ctx.msgId !== undefined || ctx.inlineMessageId !== undefined;
}

/**
 * True when the message a callback query came from carried the pressed button when it was
 * pressed. Telegram lets a client send any data with a press on a message, so a press whose
 * data the message never held (a forged id, another payout's id) may be answered but must
 * not edit the message: it would take a real prompt's buttons away, or show another
 * payout on it.
 */
export function pressIsOnItsMessage(ctx: BotContext): boolean {
  const query = ctx.callbackQuery;
  if (!query || !("data" in query)) return false;
  const message = query.message;
  if (!message || !("reply_markup" in message)) return false;
  const rows = message.reply_markup?.inline_keyboard ?? [];
  return rows.some((row) =>
    row.some((button) => "callback_data" in button && button.callback_data === query.data),
  );
}

/**
 * Edits the message the callback query came from; a view without keyboard removes the
 * buttons. With no message to edit, the view goes out as a new message in the presser's
 * chat (private chats only: the chat is the person), so the outcome is still told. A press
 * the message did not carry edits nothing (`pressIsOnItsMessage`).
 */
export async function editView(ctx: BotContext, view: View): Promise<void> {
  if (!canEditPressed(ctx)) {
    const chatId = ctx.chat?.id ?? ctx.from?.id;
    if (chatId === undefined) return;
    await sendView(ctx.telegram, chatId, view);
    return;
  }
  if (!pressIsOnItsMessage(ctx)) {
    ctx.log.warn("a press with data its message does not carry: message left as it is");
    return;
  }
  await ignoringNotModified(ctx.editMessageText(clampHtml(view.text), editOptions(view)));
}

/** Edits a message by chat and id (notifications, where there is no callback query). */
export async function editMessageView(
  telegram: Telegram,
  chatId: number,
  messageId: number,
  view: View,
): Promise<void> {
  await ignoringNotModified(
    telegram.editMessageText(chatId, messageId, undefined, clampHtml(view.text), editOptions(view)),
  );
}

export async function sendView(
  telegram: Telegram,
  chatId: number,
  view: View,
): Promise<Message.TextMessage> {
  return telegram.sendMessage(chatId, clampHtml(view.text), sendOptions(view));
}
