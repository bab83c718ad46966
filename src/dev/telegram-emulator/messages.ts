/**
 * Chats and the messages in them. Each chat numbers its messages with one counter shared
 * by the user and the bot, as Telegram does; the bot's messages are kept as immutable
 * snapshots (an edit replaces the snapshot and extends its history).
 */
import { isDeepStrictEqual } from "node:util";
import {
  BotApiError,
  badRequest,
  type EmulatedChat,
  type InlineKeyboard,
  type ParseMode,
  type SentMessage,
  type StoredFile,
  type StoredPhoto,
} from "./types.js";
import { renderText } from "./wire.js";

interface ChatRecord {
  readonly chat: EmulatedChat;
  nextMessageId: number;
  blocked: boolean;
  /** Private chats only: the user wrote to the bot at least once (Telegram's precondition). */
  started: boolean;
  readonly userMessageIds: Set<number>;
  readonly botMessages: Map<number, SentMessage>;
}

export interface MessageContent {
  readonly text: string;
  readonly parseMode: ParseMode | undefined;
  readonly replyMarkup: InlineKeyboard | undefined;
  readonly document?: StoredFile | undefined;
  readonly photo?: StoredPhoto | undefined;
}

/** A change to a bot message: a new text (editMessageText) and/or a new keyboard. */
export interface MessageEdit {
  readonly text?: { readonly text: string; readonly parseMode: ParseMode | undefined };
  readonly replyMarkup: InlineKeyboard | undefined;
}

export type MessageEventName = "message" | "edit" | "delete";

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

export class MessageStore {
  readonly #chats = new Map<number, ChatRecord>();
  readonly #notify: (event: MessageEventName, message: SentMessage) => void;

  constructor(notify: (event: MessageEventName, message: SentMessage) => void) {
    this.#notify = notify;
  }

  /** Registers a chat once; later calls keep the first record. */
  ensureChat(chat: EmulatedChat, started: boolean): void {
    if (this.#chats.has(chat.id)) return;
    this.#chats.set(chat.id, {
      chat,
      nextMessageId: 1,
      blocked: false,
      started,
      userMessageIds: new Set(),
      botMessages: new Map(),
    });
  }

  chat(chatId: number): EmulatedChat | undefined {
    return this.#chats.get(chatId)?.chat;
  }

  /** Resolves a `chat_id` parameter (number, decimal text or @username) to a known chat id. */
  resolveChatId(chatId: number | string): number {
    const numeric = typeof chatId === "number" ? chatId : Number(chatId);
    if (Number.isInteger(numeric) && this.#chats.has(numeric)) return numeric;
    if (typeof chatId === "string" && chatId.startsWith("@")) {
      for (const { chat } of this.#chats.values()) {
        if ("username" in chat && `@${chat.username}` === chatId) return chat.id;
      }
    }
    throw badRequest("chat not found");
  }

  setBlocked(chatId: number, blocked: boolean): void {
    const record = this.#chats.get(chatId);
    if (record) record.blocked = blocked;
  }

  /** Throws the 403 Telegram answers when a private chat's user blocked or never started the bot. */
  assertCanSend(chatId: number): void {
    const record = this.#chats.get(chatId);
    if (record?.blocked) throw new BotApiError(403, "Forbidden: bot was blocked by the user");
    if (record && !record.started) {
      throw new BotApiError(403, "Forbidden: bot can't initiate conversation with a user");
    }
  }

  /** Allocates the id of a message a user sends (which also starts a private chat). */
  addUserMessage(chatId: number): number {
    const record = this.#record(chatId);
    record.started = true;
    const messageId = this.#allocate(record);
    record.userMessageIds.add(messageId);
    return messageId;
  }

  addBotMessage(chatId: number, content: MessageContent): SentMessage {
    const record = this.#record(chatId);
    const now = Date.now();
    const message: SentMessage = {
      chatId,
      messageId: this.#allocate(record),
      text: content.text,
      parseMode: content.parseMode,
      replyMarkup: content.replyMarkup,
      editCount: 0,
      history: [
        {
          text: content.text,
          parseMode: content.parseMode,
          replyMarkup: content.replyMarkup,
          atMs: now,
        },
      ],
      document: content.document,
      ...(content.photo ? { photo: content.photo } : {}),
      deleted: false,
      sentAtMs: now,
    };
    record.botMessages.set(message.messageId, message);
    this.#notify("message", message);
    return message;
  }

  /** Applies an edit the way Telegram judges it; throws "not modified", "not found" and co. */
  edit(chatId: number, messageId: number, edit: MessageEdit): SentMessage {
    const record = this.#record(chatId);
    const current = record.botMessages.get(messageId);
    if (!current || current.deleted) {
      if (record.userMessageIds.has(messageId)) throw badRequest("message can't be edited");
      throw badRequest("message to edit not found");
    }
    if (edit.text && (current.document || current.photo))
      throw badRequest("there is no text in the message to edit");
    const text = edit.text?.text ?? current.text;
    const parseMode = edit.text ? edit.text.parseMode : current.parseMode;
    const sameText = isDeepStrictEqual(
      renderText(text, parseMode),
      renderText(current.text, current.parseMode),
    );
    if (sameText && isDeepStrictEqual(edit.replyMarkup, current.replyMarkup)) {
      throw badRequest(NOT_MODIFIED);
    }
    const version = { text, parseMode, replyMarkup: edit.replyMarkup, atMs: Date.now() };
    const updated: SentMessage = {
      ...current,
      text,
      parseMode,
      replyMarkup: edit.replyMarkup,
      editCount: current.editCount + 1,
      history: [...current.history, version],
    };
    record.botMessages.set(messageId, updated);
    this.#notify("edit", updated);
    return updated;
  }

  /** Deletes a message of either side; only bot messages are kept (flagged) for observers. */
  delete(chatId: number, messageId: number): void {
    const record = this.#record(chatId);
    const current = record.botMessages.get(messageId);
    if (current && !current.deleted) {
      const deleted = { ...current, deleted: true };
      record.botMessages.set(messageId, deleted);
      this.#notify("delete", deleted);
      return;
    }
    if (record.userMessageIds.delete(messageId)) return;
    throw badRequest("message to delete not found");
  }

  get(chatId: number, messageId: number): SentMessage | undefined {
    return this.#chats.get(chatId)?.botMessages.get(messageId);
  }

  /** The bot's messages in a chat, oldest first; deleted ones only when asked for. */
  list(chatId: number, includeDeleted = false): SentMessage[] {
    const messages = [...(this.#chats.get(chatId)?.botMessages.values() ?? [])];
    return includeDeleted ? messages : messages.filter((message) => !message.deleted);
  }

  /** Every bot message in every chat, most recently sent or edited last. */
  all(): SentMessage[] {
    const messages = [...this.#chats.values()].flatMap((record) => [
      ...record.botMessages.values(),
    ]);
    const changedAt = (message: SentMessage) => message.history.at(-1)?.atMs ?? message.sentAtMs;
    return messages.sort((a, b) => changedAt(a) - changedAt(b));
  }

  #record(chatId: number): ChatRecord {
    const record = this.#chats.get(chatId);
    if (!record) throw badRequest("chat not found");
    return record;
  }

  #allocate(record: ChatRecord): number {
    const messageId = record.nextMessageId;
    record.nextMessageId += 1;
    return messageId;
  }
}
