/**
 * Public types of the Telegram Bot API emulator and the one error class its method
 * handlers throw. Wire objects (updates, messages, chats) reuse Telegraf's own typegram
 * types so the emulator cannot drift from what a Telegraf bot expects to receive.
 */
import type { Chat } from "telegraf/types";

/** Options of `startTelegramEmulator`; every field has a default. */
export interface TelegramEmulatorOptions {
  /** Bot token the emulator accepts; default a well-formed fake. */
  readonly token?: string;
  /** The bot's username as getMe reports it; default "emulated_bot". */
  readonly botUsername?: string;
  /** Interface to listen on; default 127.0.0.1. */
  readonly host?: string;
  /** Port to listen on; default 0 (any free port). */
  readonly port?: number;
  /** Longest a getUpdates long poll waits, whatever `timeout` it asks for; default 25 000. */
  readonly maxPollWaitMs?: number;
  /** Delay between webhook delivery attempts of one update; default 100. */
  readonly webhookRetryDelayMs?: number;
  /** Attempts per update before the emulator gives up on it; default 3. */
  readonly webhookMaxAttempts?: number;
  /** Deadline of one webhook POST; default 10 000. */
  readonly webhookTimeoutMs?: number;
}

/** The resolved options: what the emulator actually runs with. */
export interface ResolvedEmulatorOptions {
  readonly token: string;
  readonly botUsername: string;
  readonly host: string;
  readonly port: number;
  readonly maxPollWaitMs: number;
  readonly webhookRetryDelayMs: number;
  readonly webhookMaxAttempts: number;
  readonly webhookTimeoutMs: number;
}

/** A token with the shape Telegram issues (`<bot id>:<35 chars>`), accepted by Telegraf. */
export const DEFAULT_EMULATOR_TOKEN = "123456789:TEST-emulator-token-aaaaaaaaaaaaaaaaaaaa";

export type ParseMode = "HTML" | "MarkdownV2" | "Markdown";

/** One inline keyboard button as the bot sent it (only the fields tests look at are typed). */
export interface InlineButton {
  readonly text: string;
  readonly callback_data?: string | undefined;
  readonly url?: string | undefined;
  /** A `web_app` button: the Mini App it opens (Telegram wants https). */
  readonly web_app?: { readonly url: string } | undefined;
}

export type InlineKeyboard = ReadonlyArray<ReadonlyArray<InlineButton>>;

/** One version of a bot message: the original, then one per successful edit. */
export interface MessageVersion {
  readonly text: string;
  readonly parseMode: ParseMode | undefined;
  readonly replyMarkup: InlineKeyboard | undefined;
  readonly atMs: number;
}

/** A file held by the emulator: uploaded by a user or sent by the bot. */
export interface StoredFile {
  readonly fileId: string;
  readonly fileUniqueId: string;
  readonly filePath: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly bytes: Buffer;
  /** Telegram may leave `file_size` out; uploads can ask for that. */
  readonly omitFileSize?: boolean;
}

/** A photo the bot sent: the file as uploaded and the size Telegram read from it. */
export interface StoredPhoto extends StoredFile {
  readonly width: number;
  readonly height: number;
}

/** A photo the bot sent, with the message that carried it. */
export interface SentPhoto extends StoredPhoto {
  readonly chatId: number;
  readonly messageId: number;
  readonly caption: string | undefined;
}

/** A document the bot sent, with the message that carried it. */
export interface SentDocument extends StoredFile {
  readonly chatId: number;
  readonly messageId: number;
  readonly caption: string | undefined;
}

/**
 * The current state of one message the bot sent. Snapshots are immutable: an edit makes
 * a new snapshot whose `history` holds every version, oldest first, the current one last.
 * For a document, `text` is its caption ("" without one).
 */
export interface SentMessage {
  readonly chatId: number;
  readonly messageId: number;
  readonly text: string;
  readonly parseMode: ParseMode | undefined;
  readonly replyMarkup: InlineKeyboard | undefined;
  readonly editCount: number;
  readonly history: ReadonlyArray<MessageVersion>;
  readonly document: StoredFile | undefined;
  /** A photo message (sendPhoto); `text` is its caption. */
  readonly photo?: StoredPhoto | undefined;
  readonly deleted: boolean;
  readonly sentAtMs: number;
}

/** What the bot answered to a callback query. */
export interface CallbackAnswer {
  readonly callbackQueryId: string;
  readonly text: string | undefined;
  readonly showAlert: boolean;
  readonly url: string | undefined;
  readonly atMs: number;
}

/** One Bot API call as received, with its parsed parameters (uploads shown as descriptors). */
export interface EmulatorCall {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly atMs: number;
  /** The call came in a webhook's answer rather than as a request of its own. */
  readonly viaWebhookReply?: true;
}

/** A failure `failNext` makes a method return, shaped like Telegram's. */
export interface FailureResponse {
  readonly error_code: number;
  readonly description: string;
  readonly retry_after?: number;
}

/** The webhook as the bot last set it, plus delivery facts. */
export interface WebhookSnapshot {
  readonly url: string;
  readonly secretToken: string | undefined;
  readonly pendingUpdateCount: number;
  readonly deliveredCount: number;
  readonly lastErrorMessage: string | undefined;
  readonly lastErrorDate: number | undefined;
}

/** What pressing a button produced: the update and the callback query to watch. */
export interface PressedButton {
  readonly updateId: number;
  readonly callbackQueryId: string;
}

/** A chat the emulator knows: private chats are created per user, groups on demand. */
export type EmulatedChat = Chat.PrivateChat | Chat.GroupChat | Chat.SupergroupChat;

/** Events the emulator emits for observers such as the terminal demo. */
export interface TelegramEmulatorEvents {
  message: [message: SentMessage];
  edit: [message: SentMessage];
  delete: [message: SentMessage];
  callbackAnswer: [answer: CallbackAnswer];
  call: [call: EmulatorCall];
  /** The bot finished downloading a file (`/file/bot<token>/<path>`). */
  download: [filePath: string];
}

/** An error answer of the Bot API: `{ok: false, error_code, description, parameters?}`. */
export class BotApiError extends Error {
  override readonly name = "BotApiError";
  readonly errorCode: number;
  readonly description: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(errorCode: number, description: string, retryAfterSeconds?: number) {
    super(description);
    this.errorCode = errorCode;
    this.description = description;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The JSON body Telegram sends for this error. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      ok: false,
      error_code: this.errorCode,
      description: this.description,
    };
    if (this.retryAfterSeconds !== undefined) {
      body.parameters = { retry_after: this.retryAfterSeconds };
    }
    return body;
  }
}

/** 400 with Telegram's "Bad Request: " prefix. */
export function badRequest(detail: string): BotApiError {
  return new BotApiError(400, `Bad Request: ${detail}`);
}
