/** People's Telegram names, in process memory. */
import type { UserProfile } from "../../model/staff.js";
import { UserProfileSchema } from "../../model/staff.js";
import { checkInput } from "../schemas.js";
import type { ProfileStore } from "../types.js";

export class MemoryProfileStore implements ProfileStore {
  readonly #profiles = new Map<number, UserProfile>();

  async set(userId: number, profile: UserProfile): Promise<void> {
    this.#profiles.set(userId, { ...checkInput(UserProfileSchema, profile, "profile") });
  }

  async getMany(userIds: readonly number[]): Promise<Map<number, UserProfile>> {
    const found = new Map<number, UserProfile>();
    for (const userId of userIds) {
      const profile = this.#profiles.get(userId);
      if (profile) found.set(userId, { ...profile });
    }
    return found;
  }
}
