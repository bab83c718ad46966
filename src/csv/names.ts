/**
 * Staff members by name in exports: `Ama (1002)`, or the bare id of someone who never wrote
 * to the bot. Each id is looked up once per export, however many rows name it.
 */
import type { ProfileStore } from "../store/types.js";

export class NameBook {
  readonly #profiles: ProfileStore;
  readonly #known = new Map<number, string>();

  constructor(profiles: ProfileStore) {
    this.#profiles = profiles;
  }

  /** Looks up the ids not seen yet (one read for all of them). */
  async learn(userIds: Iterable<number>): Promise<void> {
    const unknown = [...new Set(userIds)].filter((id) => !this.#known.has(id));
    if (unknown.length === 0) return;
    const profiles = await this.#profiles.getMany(unknown);
    for (const id of unknown) {
      const name = profiles.get(id)?.firstName;
      this.#known.set(id, name === undefined ? String(id) : `${name} (${id})`);
    }
  }

  /** The name of someone `learn` was given; undefined for no one. */
  of(userId: number | undefined): string | undefined {
    if (userId === undefined) return undefined;
    return this.#known.get(userId) ?? String(userId);
  }
}
