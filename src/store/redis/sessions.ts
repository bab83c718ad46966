/**
 * Who is talking to the bot: dialogs in progress (expiring) and each user's language. Every
 * read is validated; a value that fails is logged and read as absent.
 */
import { type Logger, silentLogger } from "../../logger.js";
import type { DialogState } from "../../model/dialog.js";
import { DialogStateSchema } from "../../model/dialog.js";
import { type Locale, LocaleSchema } from "../../model/locale.js";
import type { Keys } from "../keys.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import type { SessionStore } from "../types.js";
import type { RedisClient } from "./connection.js";

export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisClient;
  readonly #keys: Keys;
  readonly #logger: Logger;

  constructor(redis: RedisClient, keys: Keys, logger: Logger = silentLogger) {
    this.#redis = redis;
    this.#keys = keys;
    this.#logger = logger;
  }

  async getDialog(chatId: number): Promise<DialogState | null> {
    const text = await this.#redis.get(this.#keys.dialog(chatId));
    if (text === null) return null;
    const parsed = DialogStateSchema.safeParse(parseJsonOrUndefined(text));
    if (parsed.success) return parsed.data;
    this.#logger.warn({ chatId }, "stored dialog is not valid; starting over");
    return null;
  }

  /** Replaces the chat's dialog; it disappears after `ttlSeconds` (whole seconds, ≥ 1). */
  async setDialog(chatId: number, dialog: DialogState, ttlSeconds: number): Promise<void> {
    const checked = checkInput(DialogStateSchema, dialog, "dialog");
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    await this.#redis.set(this.#keys.dialog(chatId), JSON.stringify(checked), "EX", ttl);
  }

  async clearDialog(chatId: number): Promise<void> {
    await this.#redis.del(this.#keys.dialog(chatId));
  }

  async getLocale(userId: number): Promise<Locale | null> {
    const text = await this.#redis.get(this.#keys.locale(userId));
    if (text === null) return null;
    const parsed = LocaleSchema.safeParse(text);
    return parsed.success ? parsed.data : null;
  }

  /** Kept without expiry: a language choice is a preference, not a session. */
  async setLocale(userId: number, locale: Locale): Promise<void> {
    await this.#redis.set(this.#keys.locale(userId), checkInput(LocaleSchema, locale, "locale"));
  }
}
