/**
 * Building and checking Bot API objects: the Message a bot method returns, the updates a
 * user action produces, and the limits Telegram enforces on outgoing content (4096
 * characters of text, 1024 of caption, 64 bytes of callback_data).
 */
import type { Document, Message, MessageEntity, PhotoSize, User } from "telegraf/types";
import type { z } from "zod";
import { parseTelegramHtml } from "./html.js";
import type { ButtonSchema } from "./params.js";
import {
  badRequest,
  type EmulatedChat,
  type InlineButton,
  type InlineKeyboard,
  type ParseMode,
  type SentMessage,
  type StoredFile,
  type StoredPhoto,
} from "./types.js";
import { webAppUrlAccepted } from "./webapp-url.js";

const MAX_TEXT_LENGTH = 4096;
const MAX_CAPTION_LENGTH = 1024;
const MAX_CALLBACK_DATA_BYTES = 64;

/** Button kinds other than callback_data and url: any one of them makes a valid button. */
const OTHER_BUTTON_ACTIONS = [
  "web_app",
  "login_url",
  "switch_inline_query",
  "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat",
  "callback_game",
  "pay",
  "copy_text",
];

export interface RenderedText {
  readonly text: string;
  readonly entities: MessageEntity[];
}

/** The text a user sees and its entities; HTML is parsed (and refused like Telegram does). */
export function renderText(text: string, parseMode: ParseMode | undefined): RenderedText {
  return parseMode === "HTML" ? parseTelegramHtml(text) : { text, entities: [] };
}

/** Checks a message text against Telegram's rules; returns it rendered. */
export function checkMessageText(text: string, parseMode: ParseMode | undefined): RenderedText {
  const rendered = renderText(text, parseMode);
  if (rendered.text.trim() === "") throw badRequest("message text is empty");
  if (rendered.text.length > MAX_TEXT_LENGTH) throw badRequest("message is too long");
  return rendered;
}

/** Checks a caption (may be absent); returns it rendered. */
export function checkCaption(caption: string | undefined, parseMode: ParseMode | undefined) {
  if (caption === undefined) return undefined;
  const rendered = renderText(caption, parseMode);
  if (rendered.text.length > MAX_CAPTION_LENGTH) throw badRequest("message caption is too long");
  return rendered;
}

function checkButton(button: z.output<typeof ButtonSchema>): InlineButton {
  const data = button.callback_data;
  if (data !== undefined) {
    const bytes = Buffer.byteLength(data, "utf8");
    if (bytes < 1 || bytes > MAX_CALLBACK_DATA_BYTES) throw badRequest("BUTTON_DATA_INVALID");
    return { text: button.text, callback_data: data };
  }
  if (button.url !== undefined) return { text: button.text, url: button.url };
  const webApp = button.web_app;
  if (webApp !== undefined) {
    // Telegram refuses a web_app button whose page is not https (loopback http aside: webapp-url.ts).
    if (!webAppUrlAccepted(webApp.url)) throw badRequest("BUTTON_URL_INVALID");
    return { text: button.text, web_app: { url: webApp.url } };
  }
  if (OTHER_BUTTON_ACTIONS.some((key) => key in button)) return { text: button.text };
  throw badRequest(
    "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
  );
}

/** Validates an inline keyboard and keeps the fields tests read; other markups → undefined. */
export function checkInlineKeyboard(
  markup: { inline_keyboard?: z.output<typeof ButtonSchema>[][] | undefined } | undefined,
): InlineKeyboard | undefined {
  const rows = markup?.inline_keyboard;
  if (rows === undefined) return undefined;
  return rows.map((row) => row.map(checkButton));
}

export function documentOf(file: StoredFile): Document {
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    file_name: file.fileName,
    mime_type: file.mimeType,
    ...(file.omitFileSize === true ? {} : { file_size: file.bytes.length }),
  };
}

/** One size of a photo: the emulator keeps the upload as it came, the one size Telegram lists. */
export function photoSizeOf(photo: StoredPhoto): PhotoSize {
  return {
    file_id: photo.fileId,
    file_unique_id: photo.fileUniqueId,
    width: photo.width,
    height: photo.height,
    file_size: photo.bytes.length,
  };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The width and height a PNG declares (its IHDR chunk), or undefined for anything else.
 * The emulator reads PNG only; Telegram would also take JPEG and WebP.
 */
export function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (bytes.toString("latin1", 12, 16) !== "IHDR") return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function withMarkup<T extends object>(message: T, keyboard: InlineKeyboard | undefined) {
  if (keyboard === undefined) return message;
  const inline_keyboard = keyboard.map((row) => row.map((button) => ({ ...button })));
  return { ...message, reply_markup: { inline_keyboard } };
}

/** The Message object Telegram returns for a bot message (and puts in callback queries). */
export function toApiMessage(sent: SentMessage, chat: EmulatedChat, bot: User): Message {
  const editedAtMs = sent.history.at(-1)?.atMs ?? sent.sentAtMs;
  const base = {
    message_id: sent.messageId,
    from: bot,
    chat,
    date: Math.floor(sent.sentAtMs / 1000),
    ...(sent.editCount > 0 ? { edit_date: Math.floor(editedAtMs / 1000) } : {}),
  };
  const rendered = renderText(sent.text, sent.parseMode);
  if (sent.document) {
    const captioned =
      rendered.text === ""
        ? base
        : { ...base, caption: rendered.text, caption_entities: rendered.entities };
    return withMarkup({ ...captioned, document: documentOf(sent.document) }, sent.replyMarkup);
  }
  if (sent.photo) {
    const captioned =
      rendered.text === ""
        ? base
        : { ...base, caption: rendered.text, caption_entities: rendered.entities };
    return withMarkup({ ...captioned, photo: [photoSizeOf(sent.photo)] }, sent.replyMarkup);
  }
  const entities = rendered.entities.length > 0 ? { entities: rendered.entities } : {};
  return withMarkup({ ...base, text: rendered.text, ...entities }, sent.replyMarkup);
}

const COMMAND = /(?<=^|\s)\/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,32})?(?![\w@])/g;

/** `bot_command` entities, which Telegram adds to any `/command` a user types. */
export function commandEntities(text: string): MessageEntity[] {
  return [...text.matchAll(COMMAND)].map((match) => ({
    type: "bot_command",
    offset: match.index,
    length: match[0].length,
  }));
}

/** Every button of a keyboard in reading order (rows left to right, top to bottom). */
export function flatButtons(keyboard: InlineKeyboard | undefined): InlineButton[] {
  return keyboard ? keyboard.flat() : [];
}
