/**
 * Who is talking to the bot: dialogs in progress (expiring), each user's language, and the
 * staff roles. Every read is validated; a value that fails is logged and read as absent,
 * which for a role means "no access" (fail closed).
 */
import type { Redis } from "ioredis";
import { type Logger, silentLogger } from "../../logger.js";
import type { DialogState } from "../../model/dialog.js";
import { DialogStateSchema } from "../../model/dialog.js";
import { type Locale, LocaleSchema } from "../../model/locale.js";
import type { Role } from "../../model/roles.js";
import { RoleSchema } from "../../model/roles.js";
import type { StaffMember, StaffOrigin } from "../../model/staff.js";
import { StaffOriginSchema } from "../../model/staff.js";
import type { Keys } from "../keys.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import type { SessionStore, StaffStore } from "../types.js";
import { luaScript, runScript } from "./scripts.js";

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

/**
 * KEYS: roles, origins, grant times. ARGV: user id, role, origin (JSON, or "" for none),
 * grant time (ms). A role that changes (or a new member) is granted now; the same role set
 * again keeps its grant time, so a restart's STAFF does not make everyone new.
 */
const SET_STAFF_SCRIPT = luaScript(`
local before = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if before ~= ARGV[2] then redis.call('HSET', KEYS[3], ARGV[1], ARGV[4]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) else redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
`);

export class RedisStaffStore implements StaffStore {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #originsKey: string;
  readonly #grantedKey: string;
  readonly #logger: Logger;

  constructor(redis: Redis, keys: Keys, logger: Logger = silentLogger) {
    this.#redis = redis;
    this.#key = keys.staff();
    this.#originsKey = keys.staffOrigins();
    this.#grantedKey = keys.staffGranted();
    this.#logger = logger;
  }

  async get(userId: number): Promise<Role | null> {
    const value = await this.#redis.hget(this.#key, String(userId));
    return value === null ? null : this.#role(userId, value);
  }

  async set(
    userId: number,
    role: Role,
    origin?: StaffOrigin,
    grantedAtMs = Date.now(),
  ): Promise<void> {
    const checked = checkInput(RoleSchema, role, "role");
    const keys = [this.#key, this.#originsKey, this.#grantedKey];
    const args = [String(userId), checked, origin ? JSON.stringify(origin) : "", grantedAtMs];
    await runScript(this.#redis, SET_STAFF_SCRIPT, keys, args);
  }

  /** True when the user had a role. */
  async remove(userId: number, origin?: StaffOrigin): Promise<boolean> {
    const field = String(userId);
    const multi = this.#redis.multi().hdel(this.#key, field).hdel(this.#grantedKey, field);
    if (origin) multi.hset(this.#originsKey, field, JSON.stringify({ ...origin, removed: true }));
    else multi.hdel(this.#originsKey, field);
    const replies = await multi.exec();
    return Number(replies?.[0]?.[1] ?? 0) > 0;
  }

  async origin(userId: number): Promise<StaffOrigin | null> {
    return this.#origin(userId, await this.#redis.hget(this.#originsKey, String(userId)));
  }

  /** Every member, by user id. */
  async list(): Promise<StaffMember[]> {
    const [all, origins, granted] = await Promise.all([
      this.#redis.hgetall(this.#key),
      this.#redis.hgetall(this.#originsKey),
      this.#redis.hgetall(this.#grantedKey),
    ]);
    const members: StaffMember[] = [];
    for (const [field, value] of Object.entries(all)) {
      const userId = Number(field);
      const role = Number.isSafeInteger(userId) ? this.#role(userId, value) : null;
      const origin = this.#origin(userId, origins[field] ?? null);
      const grantedAtMs = Number(granted[field]);
      if (!role) continue;
      members.push({
        userId,
        role,
        ...(origin ? { origin } : {}),
        ...(Number.isSafeInteger(grantedAtMs) ? { grantedAtMs } : {}),
      });
    }
    return members.sort((a, b) => a.userId - b.userId);
  }

  #origin(userId: number, text: string | null): StaffOrigin | null {
    if (text === null) return null;
    try {
      const parsed = StaffOriginSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // reported below
    }
    this.#logger.error({ userId }, "stored staff origin is not valid; treated as unknown");
    return null;
  }

  #role(userId: number, value: string): Role | null {
    const parsed = RoleSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.#logger.error({ userId }, "stored staff role is not valid; treated as no role");
    return null;
  }
}
