/**
 * Who is talking to the bot: dialogs in progress (expiring), each user's language, and the
 * staff roles. Every read is validated; a value that fails is logged and read as absent,
 * which for a role means "no access" (fail closed).
 */
import type { Redis } from "ioredis";
import type { Role } from "../config.js";
import { type Logger, silentLogger } from "../logger.js";
import { type Locale, LocaleSchema } from "../payouts/payout.js";
import type { Keys } from "./keys.js";
import { parseJsonOrUndefined } from "./redis-reply.js";
import { checkInput, DialogStateSchema, RoleSchema } from "./schemas.js";
import type { DialogState, SessionStore, StaffMember, StaffStore } from "./types.js";

export class RedisSessionStore implements SessionStore {
  readonly #redis: Redis;
  readonly #keys: Keys;
  readonly #logger: Logger;

  constructor(redis: Redis, keys: Keys, logger: Logger = silentLogger) {
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

export class RedisStaffStore implements StaffStore {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #logger: Logger;

  constructor(redis: Redis, keys: Keys, logger: Logger = silentLogger) {
    this.#redis = redis;
    this.#key = keys.staff();
    this.#logger = logger;
  }

  async get(userId: number): Promise<Role | null> {
    const value = await this.#redis.hget(this.#key, String(userId));
    return value === null ? null : this.#role(userId, value);
  }

  async set(userId: number, role: Role): Promise<void> {
    await this.#redis.hset(this.#key, String(userId), checkInput(RoleSchema, role, "role"));
  }

  /** True when the user had a role. */
  async remove(userId: number): Promise<boolean> {
    return (await this.#redis.hdel(this.#key, String(userId))) > 0;
  }

  /** Every member, by user id. */
  async list(): Promise<StaffMember[]> {
    const all = await this.#redis.hgetall(this.#key);
    const members: StaffMember[] = [];
    for (const [field, value] of Object.entries(all)) {
      const userId = Number(field);
      const role = Number.isSafeInteger(userId) ? this.#role(userId, value) : null;
      if (role) members.push({ userId, role });
    }
    return members.sort((a, b) => a.userId - b.userId);
  }

  #role(userId: number, value: string): Role | null {
    const parsed = RoleSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.#logger.error({ userId }, "stored staff role is not valid; treated as no role");
    return null;
  }
}
