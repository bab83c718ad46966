/**
 * One merchant's Telegram calls when the bot serves several (MERCHANTS_FILE), seen at the
 * transport so that no feature has to know: every text it sends to someone who works for
 * more than one merchant starts with the merchant's name (prompts, cards, notices, exports'
 * captions), and every message it sends or edits with buttons is remembered as this
 * merchant's, so a press on those buttons acts in this merchant whichever one the person
 * switched to since.
 */
import { escapeHtml } from "../../i18n.js";
import type { TelegramCallTag } from "./transport.js";

export interface MerchantTagDeps {
  /** The merchant's display name. */
  name: string;
  /** Whether messages to this chat name the merchant (a person with several; any group). */
  named(chatId: number): Promise<boolean>;
  /** Records that this message carries this merchant's buttons. */
  remember(chatId: number, messageId: number): Promise<void>;
  /** A failed `remember` is logged, never the call's failure. */
  warn(error: unknown): void;
}

/** The methods whose `text` (or `caption`) a person reads as a message. */
const TEXT_METHODS = new Set(["sendMessage", "editMessageText"]);
const CAPTION_METHODS = new Set(["sendDocument", "sendPhoto", "editMessageCaption"]);

function chatIdOf(payload: object): number | undefined {
  const chatId = Reflect.get(payload, "chat_id");
  return typeof chatId === "number" ? chatId : undefined;
}

function hasButtons(payload: object): boolean {
  const markup = Reflect.get(payload, "reply_markup");
  return (
    typeof markup === "object" &&
    markup !== null &&
    Array.isArray(Reflect.get(markup, "inline_keyboard"))
  );
}

/** The heading a message of `name` starts with, in the payload's parse mode. */
export function merchantHeading(name: string, html: boolean): string {
  return html ? `🏢 <b>${escapeHtml(name)}</b>\n` : `🏢 ${name}\n`;
}

export function merchantTag(deps: MerchantTagDeps): TelegramCallTag {
  return {
    async before(method, payload) {
      const field = TEXT_METHODS.has(method)
        ? "text"
        : CAPTION_METHODS.has(method)
          ? "caption"
          : undefined;
      if (field === undefined) return undefined;
      const chatId = chatIdOf(payload);
      const text = Reflect.get(payload, field);
      if (chatId === undefined) return undefined;
      if (!(await deps.named(chatId))) return undefined;
      const html = Reflect.get(payload, "parse_mode") === "HTML";
      if (typeof text === "string")
        return { [field]: `${merchantHeading(deps.name, html)}${text}` };
      // A document without a caption gets one: which merchant's export this is.
      if (field === "caption" && text === undefined) {
        return { caption: merchantHeading(deps.name, false).trimEnd() };
      }
      return undefined;
    },
    async after(method, payload, result) {
      if (!hasButtons(payload)) return;
      const chatId = chatIdOf(payload);
      const sent = typeof result === "object" && result !== null ? result : undefined;
      const messageId = sent ? Reflect.get(sent, "message_id") : Reflect.get(payload, "message_id");
      const fromResult = sent ? Reflect.get(sent, "chat") : undefined;
      const resultChat =
        typeof fromResult === "object" && fromResult !== null
          ? Reflect.get(fromResult, "id")
          : undefined;
      const chat = typeof resultChat === "number" ? resultChat : chatId;
      if (typeof messageId !== "number" || chat === undefined) return;
      if (method.startsWith("answer")) return;
      await deps.remember(chat, messageId).catch(deps.warn);
    },
  };
}
