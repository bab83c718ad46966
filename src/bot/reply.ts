/**
 * Sending and editing views. Every message goes out in HTML parse mode; an edit that
 * Telegram refuses because nothing changed ("message is not modified") is not an error.
 */
import type { Telegram } from "telegraf";
import { TelegramError } from "telegraf";
import type { Message } from "telegraf/types";
import type { BotContext } from "./context.js";
import type { View } from "./views.js";

export async function replyView(ctx: BotContext, view: View): Promise<Message.TextMessage> {
  return ctx.reply(view.text, {
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(view.keyboard ? { reply_markup: view.keyboard } : {}),
  });
}

function isNotModified(error: unknown): boolean {
  return error instanceof TelegramError && /message is not modified/i.test(error.description);
}

/** Edits the message the callback query came from; a view without keyboard removes the buttons. */
export async function editView(ctx: BotContext, view: View): Promise<void> {
  try {
    await ctx.editMessageText(view.text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      reply_markup: view.keyboard ?? { inline_keyboard: [] },
    });
  } catch (error) {
    if (!isNotModified(error)) throw error;
  }
}

/** Edits a message by chat and id (notifications, where there is no callback query). */
export async function editMessageView(
  telegram: Telegram,
  chatId: number,
  messageId: number,
  view: View,
): Promise<void> {
  try {
    await telegram.editMessageText(chatId, messageId, undefined, view.text, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      reply_markup: view.keyboard ?? { inline_keyboard: [] },
    });
  } catch (error) {
    if (!isNotModified(error)) throw error;
  }
}

export async function sendView(
  telegram: Telegram,
  chatId: number,
  view: View,
): Promise<Message.TextMessage> {
  return telegram.sendMessage(chatId, view.text, {
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(view.keyboard ? { reply_markup: view.keyboard } : {}),
  });
}
