/**
 * The user side of the emulator: a person who writes to the bot, presses its buttons and
 * uploads files. Each action turns into the update Telegram would send the bot.
 */
import type { Chat, User } from "telegraf/types";
import type { UploadedFile } from "./http.js";
import type { EmulatedChat, PressedButton, SentMessage } from "./types.js";
import { flatButtons } from "./wire.js";

/** Who the user is; only `id` is required. */
export interface EmulatedUserInfo {
  readonly id: number;
  readonly firstName?: string;
  readonly username?: string;
  readonly languageCode?: string;
  /**
   * Whether the user already wrote to the bot; default true. With false, the bot gets
   * Telegram's 403 "bot can't initiate conversation" until the user sends something.
   */
  readonly hasStartedBot?: boolean;
}

/** Where a user action happens: the user's private chat unless a group is named. */
export interface UserActionOptions {
  readonly chat?: EmulatedChat;
}

/** A document's options: where, and whether Telegram leaves out its size (it may). */
export interface DocumentOptions extends UserActionOptions {
  readonly omitFileSize?: boolean;
}

/** A text message's options: where, and the bot message it replies to (Telegram's "Reply"). */
export interface TextOptions extends UserActionOptions {
  readonly replyTo?: SentMessage;
}

export type UserMessageContent =
  | { readonly kind: "text"; readonly text: string; readonly replyToMessageId?: number }
  | {
      readonly kind: "document";
      readonly file: UploadedFile;
      readonly caption?: string | undefined;
    };

/** What a user needs from the emulator; implemented by its core. */
export interface UserHost {
  postMessage(from: User, chat: EmulatedChat, content: UserMessageContent): number;
  pressCallback(from: User, chatId: number, messageId: number, data: string): PressedButton;
  currentMessage(chatId: number, messageId: number): SentMessage | undefined;
  setBlocked(chatId: number, blocked: boolean): void;
}

function describeButtons(message: SentMessage): string {
  const buttons = flatButtons(message.replyMarkup).map(
    (button, index) => `#${index} "${button.text}"${button.callback_data ? "" : " (no callback)"}`,
  );
  return buttons.length > 0 ? buttons.join(", ") : "no buttons";
}

export class EmulatedUser {
  readonly id: number;
  readonly firstName: string;
  readonly username: string | undefined;
  readonly languageCode: string | undefined;
  /** The user's private chat with the bot (its id is the user's id, as on Telegram). */
  readonly privateChat: Chat.PrivateChat;
  readonly #host: UserHost;

  constructor(host: UserHost, info: EmulatedUserInfo) {
    this.#host = host;
    this.id = info.id;
    this.firstName = info.firstName ?? `User ${info.id}`;
    this.username = info.username;
    this.languageCode = info.languageCode;
    this.privateChat = {
      id: info.id,
      type: "private",
      first_name: this.firstName,
      ...(info.username === undefined ? {} : { username: info.username }),
    };
  }

  /** The `from` object of this user's updates. */
  get apiUser(): User {
    return {
      id: this.id,
      is_bot: false,
      first_name: this.firstName,
      ...(this.username === undefined ? {} : { username: this.username }),
      ...(this.languageCode === undefined ? {} : { language_code: this.languageCode }),
    };
  }

  /**
   * Sends a text message (with bot_command entities for `/commands`), as a reply to
   * `options.replyTo` when given; resolves with the update id.
   */
  sendText(text: string, options: TextOptions = {}): Promise<number> {
    const chat = options.chat ?? this.privateChat;
    const reply =
      options.replyTo === undefined ? {} : { replyToMessageId: options.replyTo.messageId };
    return Promise.resolve(
      this.#host.postMessage(this.apiUser, chat, { kind: "text", text, ...reply }),
    );
  }

  /** Sends a file as a document message; the bot can getFile and download it. */
  uploadDocument(
    fileName: string,
    mimeType: string,
    bytes: Buffer,
    caption?: string,
    options: DocumentOptions = {},
  ): Promise<number> {
    const chat = options.chat ?? this.privateChat;
    const omit = options.omitFileSize === true ? { omitFileSize: true } : {};
    const file: UploadedFile = { fileName, mimeType, bytes, ...omit };
    return Promise.resolve(
      this.#host.postMessage(this.apiUser, chat, { kind: "document", file, caption }),
    );
  }

  /**
   * Presses a callback button of a bot message as it is now (not as the snapshot passed in
   * was): by its exact text or by its index in reading order. Throws when the message is
   * gone or has no such callback button.
   */
  pressButton(message: SentMessage, button: string | number): Promise<PressedButton> {
    const current = this.#host.currentMessage(message.chatId, message.messageId);
    if (!current || current.deleted) {
      return Promise.reject(
        new Error(`message ${message.messageId} in chat ${message.chatId} no longer exists`),
      );
    }
    const buttons = flatButtons(current.replyMarkup);
    const found =
      typeof button === "number" ? buttons[button] : buttons.find((b) => b.text === button);
    if (!found?.callback_data) {
      const problem = `no callback button ${typeof button === "number" ? `#${button}` : `"${button}"`}`;
      const detail = `message ${current.messageId} has ${describeButtons(current)}`;
      return Promise.reject(new Error(`${problem}: ${detail}`));
    }
    const { chatId, messageId } = current;
    return Promise.resolve(
      this.#host.pressCallback(this.apiUser, chatId, messageId, found.callback_data),
    );
  }

  /**
   * Sends a callback query with any data for a message, whether or not the keyboard holds
   * it (to test forged or stale buttons). Resolves with the update and callback query ids.
   */
  pressCallbackData(
    messageId: number,
    data: string,
    options: UserActionOptions = {},
  ): Promise<PressedButton> {
    const chatId = (options.chat ?? this.privateChat).id;
    return Promise.resolve(this.#host.pressCallback(this.apiUser, chatId, messageId, data));
  }

  /** Blocks the bot: its sends to this user's private chat get 403 until `unblockBot`. */
  blockBot(): void {
    this.#host.setBlocked(this.id, true);
  }

  unblockBot(): void {
    this.#host.setBlocked(this.id, false);
  }
}
