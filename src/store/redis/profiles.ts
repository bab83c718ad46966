/**
 * Staff members' names in one Redis hash, userId → JSON profile. A value that does not
 * read as a profile is logged and left out: the lists then show that member's id.
 */
import { type Logger, silentLogger } from "../../logger.js";
import type { UserProfile } from "../../model/staff.js";
import { UserProfileSchema } from "../../model/staff.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import type { ProfileStore } from "../types.js";
import type { RedisClient } from "./connection.js";

export class RedisProfileStore implements ProfileStore {
  readonly #redis: RedisClient;
  readonly #key: string;
  readonly #logger: Logger;

  constructor(redis: RedisClient, key: string, logger: Logger = silentLogger) {
    this.#redis = redis;
    this.#key = key;
    this.#logger = logger;
  }

  async set(userId: number, profile: UserProfile): Promise<void> {
    const checked = checkInput(UserProfileSchema, profile, "profile");
    await this.#redis.hset(this.#key, String(userId), JSON.stringify(checked));
  }

  async getMany(userIds: readonly number[]): Promise<Map<number, UserProfile>> {
    const profiles = new Map<number, UserProfile>();
    const ids = [...new Set(userIds)];
    if (ids.length === 0) return profiles;
    const values = await this.#redis.hmget(this.#key, ...ids.map(String));
    ids.forEach((userId, index) => {
      const text = values[index];
      if (text === null || text === undefined) return;
      const parsed = UserProfileSchema.safeParse(parseJsonOrUndefined(text));
      if (parsed.success) profiles.set(userId, parsed.data);
      else this.#logger.warn({ userId }, "stored profile is not valid; showing the id instead");
    });
    return profiles;
  }
}
