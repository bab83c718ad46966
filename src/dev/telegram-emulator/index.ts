/**
 * A local Telegram Bot API server for end-to-end tests and the terminal demo. A real
 * Telegraf bot talks to it through `apiRoot` exactly as it would to Telegram (long polling
 * or webhook), while tests play the users (`emulator.user(...)`) and read what the bot did
 * (`messages`, `waitForMessage`, `calls`). Only loopback traffic: the server listens on
 * 127.0.0.1 and webhooks are delivered only to loopback URLs.
 */
import { EventEmitter } from "node:events";
import type { UserFromGetMe } from "telegraf/types";
import { EmulatorCore } from "./core.js";
import { busiestWindow, FloodControl, type FloodLimits, type FloodRefusal } from "./flood.js";
import { plainText } from "./html.js";
import { resolveOptions } from "./options.js";
import type { CommandScopeParam } from "./params.js";
import { BotApiServer } from "./server.js";
import type {
  CallbackAnswer,
  EmulatedChat,
  EmulatorCall,
  FailureResponse,
  ResolvedEmulatorOptions,
  SentDocument,
  SentMessage,
  SentPhoto,
  TelegramEmulatorEvents,
  TelegramEmulatorOptions,
  WebhookSnapshot,
} from "./types.js";
import { EmulatedUser, type EmulatedUserInfo } from "./users.js";
import { type MenuButton, menuButtonOf } from "./webapp.js";
import { flatButtons } from "./wire.js";

export type { FloodLimits, FloodRefusal } from "./flood.js";
export { plainText } from "./html.js";
export {
  type CallbackAnswer,
  DEFAULT_EMULATOR_TOKEN,
  type EmulatedChat,
  type EmulatorCall,
  type FailureResponse,
  type InlineButton,
  type InlineKeyboard,
  type MessageVersion,
  type ParseMode,
  type PressedButton,
  type SentDocument,
  type SentMessage,
  type StoredFile,
  type TelegramEmulatorEvents,
  type TelegramEmulatorOptions,
  type WebhookSnapshot,
} from "./types.js";
export {
  EmulatedUser,
  type EmulatedUserInfo,
  type TextOptions,
  type UserActionOptions,
} from "./users.js";
export {
  DARK_THEME,
  LIGHT_THEME,
  type MenuButton,
  signWebAppInitData,
  webAppLaunchUrl,
} from "./webapp.js";

function describeMessage(message: SentMessage): string {
  const flags = [
    message.editCount > 0 ? `edited ${message.editCount}x` : "",
    message.deleted ? "deleted" : "",
  ].filter(Boolean);
  const buttons = flatButtons(message.replyMarkup).map((button) => button.text);
  return [
    `  chat ${message.chatId} #${message.messageId}`,
    flags.length > 0 ? ` (${flags.join(", ")})` : "",
    `: ${JSON.stringify(plainText(message))}`,
    buttons.length > 0 ? ` [${buttons.join(" | ")}]` : "",
  ].join("");
}

export class TelegramEmulator extends EventEmitter<TelegramEmulatorEvents> {
  readonly token: string;
  /** The bot as getMe reports it. */
  readonly bot: UserFromGetMe;
  readonly #core: EmulatorCore;
  readonly #http: BotApiServer;
  readonly #users = new Map<number, EmulatedUser>();
  #closing: Promise<void> | undefined;

  private constructor(options: ResolvedEmulatorOptions) {
    super();
    // Every pending waitForMessage is a listener, and tests wait for many users at once.
    this.setMaxListeners(0);
    this.#core = new EmulatorCore(options, this, (method, params) =>
      this.#http.runWebhookReply(method, params),
    );
    this.#http = new BotApiServer(this.#core);
    this.token = options.token;
    this.bot = this.#core.bot;
  }

  /** Starts an emulator listening on `options.host:port` (default 127.0.0.1, any port). */
  static async start(options: TelegramEmulatorOptions = {}): Promise<TelegramEmulator> {
    const resolved = resolveOptions(options);
    const emulator = new TelegramEmulator(resolved);
    await emulator.#http.listen(resolved.host, resolved.port);
    return emulator;
  }

  /** What to pass as Telegraf's `telegram.apiRoot`, e.g. `http://127.0.0.1:41234`. */
  get apiRoot(): string {
    return this.#http.apiRoot;
  }

  /** The user with this id, created on first use (later calls return the same user). */
  user(info: EmulatedUserInfo): EmulatedUser {
    const existing = this.#users.get(info.id);
    if (existing) return existing;
    const user = new EmulatedUser(this.#core, info);
    this.#core.messages.ensureChat(user.privateChat, info.hasStartedBot ?? true);
    this.#users.set(info.id, user);
    return user;
  }

  /** A group chat (ids at or below -10^12 are supergroups, as on Telegram) the bot is in. */
  group(chatId: number, title = `Group ${chatId}`): EmulatedChat {
    if (chatId >= 0) throw new RangeError("group chat ids are negative");
    const known = this.#core.messages.chat(chatId);
    if (known) return known;
    const type = chatId <= -1_000_000_000_000 ? "supergroup" : "group";
    const chat: EmulatedChat = { id: chatId, type, title };
    this.#core.messages.ensureChat(chat, true);
    return chat;
  }

  /** The current state of every message the bot sent in a chat, oldest first. */
  messages(chatId: number, options: { includeDeleted?: boolean } = {}): SentMessage[] {
    return this.#core.messages.list(chatId, options.includeDeleted ?? false);
  }

  /** The menu button the bot set for `chatId` (setChatMenuButton), or the default one. */
  menuButton(chatId: number): MenuButton {
    return menuButtonOf(this.#core, chatId);
  }

  /** The current state of one bot message. */
  message(chatId: number, messageId: number): SentMessage | undefined {
    return this.#core.messages.get(chatId, messageId);
  }

  /**
   * Resolves with the first bot message, new or just edited, that satisfies `predicate`;
   * messages already there before the call do not count until they change, so start the
   * wait before (or right after, in the same tick as) the user action it answers. Rejects
   * after `timeoutMs` (default 5000) listing the recent bot messages and API errors.
   */
  waitForMessage(
    predicate: (message: SentMessage) => boolean,
    timeoutMs = 5000,
  ): Promise<SentMessage> {
    return new Promise((resolve, reject) => {
      const check = (message: SentMessage) => {
        try {
          if (!predicate(message)) return;
          finish();
          resolve(message);
        } catch (error) {
          finish();
          reject(error);
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no bot message matched within ${timeoutMs} ms\n${this.#recent()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.off("message", check);
        this.off("edit", check);
      };
      this.on("message", check);
      this.on("edit", check);
    });
  }

  /** Resolves with the bot's answer to a callback query, at once if it already answered. */
  waitForCallbackAnswer(callbackQueryId: string, timeoutMs = 5000): Promise<CallbackAnswer> {
    const matches = (answer: CallbackAnswer) => answer.callbackQueryId === callbackQueryId;
    const done = this.#core.callbackAnswers.find(matches);
    if (done) return Promise.resolve(done);
    return new Promise((resolve, reject) => {
      const check = (answer: CallbackAnswer) => {
        if (!matches(answer)) return;
        clearTimeout(timer);
        this.off("callbackAnswer", check);
        resolve(answer);
      };
      const timer = setTimeout(() => {
        this.off("callbackAnswer", check);
        const detail = `callback query ${callbackQueryId} was not answered within ${timeoutMs} ms`;
        reject(new Error(`${detail}\n${this.#recent()}`));
      }, timeoutMs);
      this.on("callbackAnswer", check);
    });
  }

  get callbackAnswers(): ReadonlyArray<CallbackAnswer> {
    return this.#core.callbackAnswers;
  }

  /** Every API call received, in order, with its parsed parameters. */
  get calls(): ReadonlyArray<EmulatorCall> {
    return this.#core.calls;
  }

  /** How many times the bot called `method` (case-insensitive, like Telegram). */
  countCalls(method: string): number {
    const wanted = method.toLowerCase();
    return this.#core.calls.filter((call) => call.method.toLowerCase() === wanted).length;
  }

  /** The commands set for exactly this language ("" or omitted: none) and scope (default). */
  commands(languageCode?: string, scope: CommandScopeParam = { type: "default" }) {
    return this.#core.getCommands({ scope, languageCode });
  }

  /** The photos the bot sent to a chat, oldest first. */
  photos(chatId: number): SentPhoto[] {
    return this.messages(chatId, { includeDeleted: true }).flatMap(({ photo, messageId, text }) =>
      photo ? [{ ...photo, chatId, messageId, caption: text === "" ? undefined : text }] : [],
    );
  }

  /** The documents the bot sent to a chat, oldest first. */
  documents(chatId: number): SentDocument[] {
    return this.messages(chatId, { includeDeleted: true }).flatMap((message) =>
      message.document
        ? [
            {
              ...message.document,
              chatId,
              messageId: message.messageId,
              caption: message.text === "" ? undefined : message.text,
            },
          ]
        : [],
    );
  }

  get webhook(): WebhookSnapshot {
    return this.#core.webhook.snapshot();
  }

  /**
   * Makes the next `times` calls of `method` fail with this answer, as Telegram would send
   * it (`retry_after` goes into `parameters`). Calls are still recorded in `calls`.
   */
  failNext(method: string, response: FailureResponse, times = 1): void {
    this.#core.failNext(method, response, times);
  }

  /** Turns on Telegram's flood control (see flood.ts); `failNext` 429s then hold chats too. */
  floodControl(limits: FloodLimits): void {
    this.#core.flood = new FloodControl(limits);
  }

  /** The calls flood control refused, oldest first (none when it is off). */
  get floodRefusals(): ReadonlyArray<FloodRefusal> {
    return this.#core.flood?.refusals ?? [];
  }

  /** The most sends and edits to `chatId` (or any chat) received within any `windowMs`. */
  busiestWindow(windowMs: number, chatId?: number): number {
    return busiestWindow(this.#core.calls, windowMs, chatId);
  }

  /** Answers the next `times` calls of `method` `delayMs` late: a slow Telegram. */
  delayNext(method: string, delayMs: number, times = 1): void {
    this.#core.delayNext(method, delayMs, times);
  }

  /** The text a user reads in a bot message. */
  plainText(message: SentMessage): string {
    return plainText(message);
  }

  /** Answers waiting long polls with [], stops webhook delivery and closes the server. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#core.updates.endWaitingPoll();
    this.#core.webhook.close();
    await this.#http.close();
  }

  #recent(): string {
    const messages = this.#core.messages.all().slice(-8).map(describeMessage);
    const errors = this.#core.recentErrors
      .slice(-5)
      .map((error) => `  ${error.method}: ${error.description}`);
    return [
      "recent bot messages:",
      ...(messages.length > 0 ? messages : ["  (none)"]),
      ...(errors.length > 0 ? ["recent API errors:", ...errors] : []),
    ].join("\n");
  }
}

/** Starts a Telegram Bot API emulator; see `TelegramEmulatorOptions` for the defaults. */
export function startTelegramEmulator(
  options: TelegramEmulatorOptions = {},
): Promise<TelegramEmulator> {
  return TelegramEmulator.start(options);
}
