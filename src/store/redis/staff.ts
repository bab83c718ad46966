/**
 * The staff roles on Redis: a hash of roles, one of their origins (STAFF or who granted
 * them) and one of grant times. A role is set in one script (lua/staff-set.lua). Every read
 * is validated; a value that fails is logged and read as absent, which for a role means
 * "no access" (fail closed).
 */
import { type Logger, silentLogger } from "../../logger.js";
import type { Role } from "../../model/roles.js";
import { RoleSchema } from "../../model/roles.js";
import type { StaffMember, StaffOrigin } from "../../model/staff.js";
import { StaffOriginSchema } from "../../model/staff.js";
import type { Keys } from "../keys.js";
import { checkInput } from "../schemas.js";
import type { StaffStore } from "../types.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

export class RedisStaffStore implements StaffStore {
  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #originsKey: string;
  readonly #grantedKey: string;
  readonly #logger: Logger;

  constructor(redis: RedisClient, keys: Keys, logger: Logger = silentLogger) {
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
    await runScript(this.#redis, SCRIPTS["staff-set"], keys, args);
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
