/**
 * Bot API methods that send, edit and delete messages and files. Each handler parses its
 * parameters with zod, checks them the way Telegram does (in Telegram's order where it
 * matters: the chat first, then the content) and returns the method's `result`.
 */
import type { EmulatorCore } from "./core.js";
import type { ParsedRequest } from "./http.js";
import {
  DeleteMessageParams,
  EditMessageReplyMarkupParams,
  EditMessageTextParams,
  GetFileParams,
  parseParams,
  SendChatActionParams,
  SendDocumentParams,
  SendMessageParams,
  SendPhotoParams,
} from "./params.js";
import { badRequest, type InlineKeyboard, type StoredFile, type StoredPhoto } from "./types.js";
import { checkCaption, checkInlineKeyboard, checkMessageText, pngSize } from "./wire.js";

export interface MethodContext {
  readonly core: EmulatorCore;
  readonly request: ParsedRequest;
  /** Aborts when the client goes away (a long poll stops waiting). */
  readonly signal: AbortSignal;
}

export type MethodHandler = (context: MethodContext) => unknown;

/** Bots may send photos up to 10 MB; width and height together at most 10 000 px. */
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
const MAX_PHOTO_SIDES = 10_000;

/** Bots may download files up to 20 MB with getFile. */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;

interface MessageTarget {
  readonly chat_id?: number | string | undefined;
  readonly message_id?: number | undefined;
  readonly inline_message_id?: string | undefined;
}

function resolveTarget(core: EmulatorCore, target: MessageTarget) {
  if (target.inline_message_id !== undefined) {
    throw badRequest("inline messages are not supported by the emulator");
  }
  if (target.chat_id === undefined) throw badRequest("chat_id is empty");
  if (target.message_id === undefined) throw badRequest("message identifier is not specified");
  const chatId = core.messages.resolveChatId(target.chat_id);
  return { chatId, messageId: target.message_id };
}

/**
 * The checks after the chat, in Telegram's order: the content (`checkContent`), then the
 * keyboard, then whether the bot may write there. Returns the checked keyboard.
 */
function checkOutgoing(
  core: EmulatorCore,
  chatId: number,
  replyMarkup: Parameters<typeof checkInlineKeyboard>[0],
  checkContent: () => unknown = () => undefined,
): InlineKeyboard | undefined {
  checkContent();
  const keyboard = checkInlineKeyboard(replyMarkup);
  // Mini App buttons work only in a private chat with the bot.
  const webApp = keyboard?.some((row) => row.some((button) => button.web_app !== undefined));
  if (webApp && core.messages.chat(chatId)?.type !== "private") {
    throw badRequest("BUTTON_TYPE_INVALID");
  }
  core.messages.assertCanSend(chatId);
  return keyboard;
}

function sendMessage({ core, request }: MethodContext) {
  const params = parseParams(SendMessageParams, request.params);
  const chatId = core.messages.resolveChatId(params.chat_id);
  const replyMarkup = checkOutgoing(core, chatId, params.reply_markup, () =>
    checkMessageText(params.text, params.parse_mode),
  );
  const sent = core.messages.addBotMessage(chatId, {
    text: params.text,
    parseMode: params.parse_mode,
    replyMarkup,
  });
  return core.apiMessage(sent);
}

function editMessageText({ core, request }: MethodContext) {
  const params = parseParams(EditMessageTextParams, request.params);
  const { chatId, messageId } = resolveTarget(core, params);
  // Like Telegram: an edit without reply_markup removes the inline keyboard.
  const replyMarkup = checkOutgoing(core, chatId, params.reply_markup, () =>
    checkMessageText(params.text, params.parse_mode),
  );
  const edited = core.messages.edit(chatId, messageId, {
    text: { text: params.text, parseMode: params.parse_mode },
    replyMarkup,
  });
  return core.apiMessage(edited);
}

function editMessageReplyMarkup({ core, request }: MethodContext) {
  const params = parseParams(EditMessageReplyMarkupParams, request.params);
  const { chatId, messageId } = resolveTarget(core, params);
  const replyMarkup = checkOutgoing(core, chatId, params.reply_markup);
  return core.apiMessage(core.messages.edit(chatId, messageId, { replyMarkup }));
}

function deleteMessage({ core, request }: MethodContext) {
  const params = parseParams(DeleteMessageParams, request.params);
  core.messages.delete(core.messages.resolveChatId(params.chat_id), params.message_id);
  return true;
}

/** An uploaded part wins; else a file_id the emulator knows. URLs cannot be fetched here. */
function documentFile(core: EmulatorCore, request: ParsedRequest, document: string | undefined) {
  const upload = request.files.get("document");
  if (upload) return core.storeFile(upload, true);
  if (document === undefined) throw badRequest("there is no document in the request");
  const known = core.file(document);
  if (!known) throw badRequest("wrong file identifier/HTTP URL specified");
  return known;
}

function sendDocument({ core, request }: MethodContext) {
  const params = parseParams(SendDocumentParams, request.params);
  const chatId = core.messages.resolveChatId(params.chat_id);
  const replyMarkup = checkOutgoing(core, chatId, params.reply_markup, () =>
    checkCaption(params.caption, params.parse_mode),
  );
  const file: StoredFile = documentFile(core, request, params.document);
  const sent = core.messages.addBotMessage(chatId, {
    text: params.caption ?? "",
    parseMode: params.parse_mode,
    replyMarkup,
    document: file,
  });
  return core.apiMessage(sent);
}

/** An uploaded PNG, or a photo's file_id the emulator knows (from an earlier sendPhoto). */
function photoFile(core: EmulatorCore, request: ParsedRequest, photo: string | undefined) {
  const upload = request.files.get("photo");
  if (!upload) {
    if (photo === undefined) throw badRequest("there is no photo in the request");
    const known = core.file(photo);
    const size = known ? pngSize(known.bytes) : undefined;
    if (!known || !size) throw badRequest("wrong file identifier/HTTP URL specified");
    return { ...known, ...size };
  }
  if (upload.bytes.length > MAX_PHOTO_BYTES) throw badRequest("PHOTO_SAVE_FILE_INVALID");
  const size = pngSize(upload.bytes);
  if (!size) throw badRequest("IMAGE_PROCESS_FAILED");
  if (size.width + size.height > MAX_PHOTO_SIDES) throw badRequest("PHOTO_INVALID_DIMENSIONS");
  return { ...core.storeFile(upload, true), ...size };
}

function sendPhoto({ core, request }: MethodContext) {
  const params = parseParams(SendPhotoParams, request.params);
  const chatId = core.messages.resolveChatId(params.chat_id);
  const replyMarkup = checkOutgoing(core, chatId, params.reply_markup, () =>
    checkCaption(params.caption, params.parse_mode),
  );
  const photo: StoredPhoto = photoFile(core, request, params.photo);
  const sent = core.messages.addBotMessage(chatId, {
    text: params.caption ?? "",
    parseMode: params.parse_mode,
    replyMarkup,
    photo,
  });
  return core.apiMessage(sent);
}

function sendChatAction({ core, request }: MethodContext) {
  const params = parseParams(SendChatActionParams, request.params);
  const chatId = core.messages.resolveChatId(params.chat_id);
  core.messages.assertCanSend(chatId);
  return true;
}

function getFile({ core, request }: MethodContext) {
  const params = parseParams(GetFileParams, request.params);
  const file = core.file(params.file_id);
  if (!file) throw badRequest("invalid file_id");
  if (file.bytes.length > MAX_DOWNLOAD_BYTES) throw badRequest("file is too big");
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    ...(file.omitFileSize === true ? {} : { file_size: file.bytes.length }),
    file_path: file.filePath,
  };
}

export const MESSAGE_METHODS: Readonly<Record<string, MethodHandler>> = {
  sendMessage,
  editMessageText,
  editMessageReplyMarkup,
  deleteMessage,
  sendDocument,
  sendPhoto,
  sendChatAction,
  getFile,
};
