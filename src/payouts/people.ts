/**
 * Remembers how Telegram names each staff member, so that /history and /unknown can say
 * who made a payout ("by Ama") rather than a bare id. Cheap on the hot path: each process
 * reads a member's stored name once, and writes only when Telegram's name differs from it.
 * The bot's access check hands every update's sender here: the bot writes no store itself.
 */
import { localeFromLanguageCode } from "../model/locale.js";
import type { UserProfile } from "../model/staff.js";
import { cleanLine } from "../model/text.js";
import type { ProfileStore } from "../store/types.js";

/** The fields of a Telegram user (`from`) a profile is made of. */
export interface TelegramName {
  first_name: string;
  username?: string | undefined;
  language_code?: string | undefined;
}

/**
 * The profile of a Telegram user, or undefined when there is no name to show. The language
 * is kept only when Telegram sent one: a missing `language_code` says nothing about it.
 */
export function profileOf(user: TelegramName): UserProfile | undefined {
  // One clean line of at most 64 characters (Telegram's own limit on a first name).
  const firstName = cleanLine(user.first_name, 64);
  if (firstName === undefined) return undefined;
  return {
    firstName,
    ...(user.username === undefined ? {} : { username: user.username }),
    ...(user.language_code === undefined
      ? {}
      : { locale: localeFromLanguageCode(user.language_code) }),
  };
}

function sameProfile(a: UserProfile | undefined, b: UserProfile): boolean {
  return a?.firstName === b.firstName && a.username === b.username && a.locale === b.locale;
}

export class StaffNames {
  readonly #store: ProfileStore;
  /** What the store holds for each member this process has seen (staff only: a few). */
  readonly #known = new Map<number, UserProfile>();

  constructor(store: ProfileStore) {
    this.#store = store;
  }

  /** Records `user`'s name when it is not the one stored: one write per change. */
  async remember(user: TelegramName & { id: number }): Promise<void> {
    const profile = profileOf(user);
    if (!profile) return;
    if (!this.#known.has(user.id)) {
      const stored = (await this.#store.getMany([user.id])).get(user.id);
      if (stored) this.#known.set(user.id, stored);
    }
    if (sameProfile(this.#known.get(user.id), profile)) return;
    await this.#store.set(user.id, profile);
    this.#known.set(user.id, profile);
  }
}
