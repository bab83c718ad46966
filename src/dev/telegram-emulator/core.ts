/**
 * The emulator's state with no HTTP in it: the bot, chats and messages, the update queue,
 * the webhook, files, commands, callback queries, recorded calls and injected failures.
 * Method handlers and emulated users both work on this one object.
 */

import { randomBytes } from "node:crypto";
import type { EventEmitter } from "node:events";
import { extname } from "node:path";
import type { BotCommand, Message, User, UserFromGetMe } from "telegraf/types";
import type { FloodControl } from "./flood.js";
import type { UploadedFile } from "./http.js";
import { MessageStore } from "./messages.js";
import {
  BotApiError,
  badRequest,
  type CallbackAnswer,
  type EmulatedChat,
  type EmulatorCall,
  type FailureResponse,
  type PressedButton,
  type ResolvedEmulatorOptions,
  type SentMessage,
  type StoredFile,
  type TelegramEmulatorEvents,
} from "./types.js";
import { UpdateQueue } from "./updates.js";
import type { UserHost, UserMessageContent } from "./users.js";
import { WebhookDelivery, type WebhookReplyHandler } from "./webhook.js";
import { commandEntities, documentOf, toApiMessage } from "./wire.js";

/** Telegram infers a document's type from its name when the upload does not say. */
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  ".csv": "text/csv",
  ".txt": "text/plain",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".zip": "application/zip",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

const STALE_QUERY = "query is too old and response timeout expired or query ID is invalid";

/** How many API errors are kept to explain a `waitForMessage` timeout. */
const KEPT_ERRORS = 10;

export interface RecordedError {
  readonly method: string;
  readonly description: string;
}

export interface CommandTarget {
  readonly scope: Readonly<Record<string, unknown>> | undefined;
  readonly languageCode: string | undefined;
}

/**
 * Multipart parts without a Content-Type read as text/plain (RFC 7578) and Telegraf never
 * sets one, so for bot uploads the extension decides when it is a known one.
 */
function mimeTypeOf(fileName: string, declared: string): string {
  const inferred = MIME_BY_EXTENSION[extname(fileName).toLowerCase()];
  return inferred ?? (declared === "" ? "application/octet-stream" : declared);
}

function commandKey({ scope, languageCode }: CommandTarget): string {
  const type = typeof scope?.type === "string" ? scope.type : "default";
  return JSON.stringify([type, scope?.chat_id ?? null, scope?.user_id ?? null, languageCode ?? ""]);
}

export class EmulatorCore implements UserHost {
  readonly options: ResolvedEmulatorOptions;
  readonly bot: UserFromGetMe;
  readonly messages: MessageStore;
  readonly updates: UpdateQueue;
  readonly webhook: WebhookDelivery;
  readonly calls: EmulatorCall[] = [];
  readonly callbackAnswers: CallbackAnswer[] = [];
  readonly recentErrors: RecordedError[] = [];
  readonly #files = new Map<string, StoredFile>();
  readonly #fileIdsByPath = new Map<string, string>();
  readonly #commands = new Map<string, BotCommand[]>();
  readonly #openQueries = new Set<string>();
  readonly #failures = new Map<string, FailureResponse[]>();
  readonly #delays = new Map<string, number[]>();
  /** Telegram's flood control, when a test turned it on. */
  flood: FloodControl | undefined;
  readonly #events: EventEmitter<TelegramEmulatorEvents>;
  #sequence = 0;

  /** `events` receives message, edit, delete, callbackAnswer and call events. */
  constructor(
    options: ResolvedEmulatorOptions,
    events: EventEmitter<TelegramEmulatorEvents>,
    onWebhookReply: WebhookReplyHandler,
  ) {
    this.options = options;
    this.#events = events;
    this.bot = {
      id: Number(/^(\d+):/.exec(options.token)?.[1] ?? 1),
      is_bot: true,
      first_name: "Emulated Bot",
      username: options.botUsername,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    };
    this.messages = new MessageStore((event, message) => events.emit(event, message));
    this.updates = new UpdateQueue(options.maxPollWaitMs, () => this.webhook.kick());
    this.webhook = new WebhookDelivery(
      this.updates,
      {
        retryDelayMs: options.webhookRetryDelayMs,
        maxAttempts: options.webhookMaxAttempts,
        timeoutMs: options.webhookTimeoutMs,
      },
      onWebhookReply,
    );
  }

  /** The bot as the `from` of its messages. */
  get botUser(): User {
    const { id, first_name, username } = this.bot;
    return { id, is_bot: true, first_name, username };
  }

  apiMessage(sent: SentMessage): Message {
    const chat = this.messages.chat(sent.chatId);
    if (!chat) throw badRequest("chat not found");
    return toApiMessage(sent, chat, this.botUser);
  }

  /** Stores a file; `inferMimeType` (bot uploads) lets a known extension decide the type. */
  storeFile(upload: UploadedFile, inferMimeType: boolean): StoredFile {
    const n = this.#next();
    const file: StoredFile = {
      fileId: `BQACAgQAAxkBAAI${n}${randomBytes(18).toString("base64url")}`,
      fileUniqueId: `AgAD${n}${randomBytes(6).toString("base64url")}`,
      filePath: `documents/file_${n}${extname(upload.fileName).toLowerCase()}`,
      fileName: upload.fileName,
      mimeType:
        inferMimeType || upload.mimeType === ""
          ? mimeTypeOf(upload.fileName, upload.mimeType)
          : upload.mimeType,
      bytes: upload.bytes,
      ...(upload.omitFileSize === true ? { omitFileSize: true } : {}),
    };
    this.#files.set(file.fileId, file);
    this.#fileIdsByPath.set(file.filePath, file.fileId);
    return file;
  }

  file(fileId: string): StoredFile | undefined {
    return this.#files.get(fileId);
  }

  fileByPath(filePath: string): StoredFile | undefined {
    const fileId = this.#fileIdsByPath.get(filePath);
    return fileId === undefined ? undefined : this.#files.get(fileId);
  }

  setCommands(target: CommandTarget, commands: BotCommand[]): void {
    this.#commands.set(commandKey(target), commands);
  }

  /** The list stored for exactly this scope and language (Telegram's getMyCommands). */
  getCommands(target: CommandTarget): BotCommand[] {
    return this.#commands.get(commandKey(target)) ?? [];
  }

  deleteCommands(target: CommandTarget): void {
    this.#commands.delete(commandKey(target));
  }

  /** A query can be answered once; later or unknown answers get Telegram's "too old". */
  answerCallback(answer: Omit<CallbackAnswer, "atMs">): void {
    if (!this.#openQueries.delete(answer.callbackQueryId)) throw badRequest(STALE_QUERY);
    const recorded: CallbackAnswer = { ...answer, atMs: Date.now() };
    this.callbackAnswers.push(recorded);
    this.#events.emit("callbackAnswer", recorded);
  }

  failNext(method: string, response: FailureResponse, times: number): void {
    const key = method.toLowerCase();
    const queued = this.#failures.get(key) ?? [];
    for (let i = 0; i < times; i += 1) queued.push(response);
    this.#failures.set(key, queued);
  }

  /** The next `times` calls of `method` are answered `delayMs` late. */
  delayNext(method: string, delayMs: number, times: number): void {
    const key = method.toLowerCase();
    const queued = this.#delays.get(key) ?? [];
    for (let i = 0; i < times; i += 1) queued.push(delayMs);
    this.#delays.set(key, queued);
  }

  /** How late to answer this call of `method` (0: at once). */
  takeDelay(method: string): number {
    return this.#delays.get(method.toLowerCase())?.shift() ?? 0;
  }

  /**
   * The injected failure for this call of `method`, if one is queued; else flood control's
   * refusal, when it is on. An injected 429 holds the chat as flood control would.
   */
  takeFailure(method: string, params: Record<string, unknown>): BotApiError | undefined {
    const response = this.#failures.get(method.toLowerCase())?.shift();
    if (!response) return this.flood?.check(method, params, Date.now());
    const chatId = params.chat_id;
    if (response.retry_after !== undefined && chatId !== undefined) {
      this.flood?.hold(String(chatId), Date.now(), response.retry_after);
    }
    return new BotApiError(response.error_code, response.description, response.retry_after);
  }

  recordCall(call: EmulatorCall): void {
    this.calls.push(call);
    this.#events.emit("call", call);
  }

  /** The last byte of a file download was handed to the bot's connection. */
  recordDownload(filePath: string): void {
    this.#events.emit("download", filePath);
  }

  recordError(method: string, error: BotApiError): void {
    this.recentErrors.push({ method, description: error.description });
    if (this.recentErrors.length > KEPT_ERRORS) this.recentErrors.shift();
  }

  postMessage(from: User, chat: EmulatedChat, content: UserMessageContent): number {
    this.messages.ensureChat(chat, true);
    const base = {
      message_id: this.messages.addUserMessage(chat.id),
      from,
      chat,
      date: Math.floor(Date.now() / 1000),
    };
    if (content.kind === "text") {
      const entities = commandEntities(content.text);
      const text = { text: content.text, ...(entities.length > 0 ? { entities } : {}) };
      const replied =
        content.replyToMessageId === undefined
          ? undefined
          : this.messages.get(chat.id, content.replyToMessageId);
      // Telegram does not nest replies: the message replied to carries none of its own.
      const reply = replied
        ? { reply_to_message: { ...this.apiMessage(replied), reply_to_message: undefined } }
        : {};
      return this.updates.push((update_id) => ({
        update_id,
        message: { ...base, ...text, ...reply },
      }));
    }
    const document = documentOf(this.storeFile(content.file, false));
    const caption = content.caption;
    const captioned =
      caption === undefined ? {} : { caption, caption_entities: commandEntities(caption) };
    return this.updates.push((update_id) => ({
      update_id,
      message: { ...base, document, ...captioned },
    }));
  }

  pressCallback(from: User, chatId: number, messageId: number, data: string): PressedButton {
    const chat = this.messages.chat(chatId);
    if (!chat) throw new Error(`chat ${chatId} is unknown to the emulator`);
    const sent = this.messages.get(chatId, messageId);
    const message =
      sent && !sent.deleted
        ? this.apiMessage(sent)
        : { chat, message_id: messageId, date: 0 as const };
    const callbackQueryId = String(4_000_000_000_000_000n + BigInt(this.#next()));
    this.#openQueries.add(callbackQueryId);
    const chat_instance = String(BigInt(Math.abs(chatId)) * 7_919n + 1_000_003n);
    const updateId = this.updates.push((update_id) => ({
      update_id,
      callback_query: { id: callbackQueryId, from, message, chat_instance, data },
    }));
    return { updateId, callbackQueryId };
  }

  currentMessage(chatId: number, messageId: number): SentMessage | undefined {
    return this.messages.get(chatId, messageId);
  }

  setBlocked(chatId: number, blocked: boolean): void {
    this.messages.setBlocked(chatId, blocked);
  }

  #next(): number {
    this.#sequence += 1;
    return this.#sequence;
  }
}
