/**
 * Remembers how Telegram names each staff member, so that /history and /unknown can say
 * who made a payout ("by Ama") rather than a bare id. Cheap on the hot path: each process
 * reads a member's stored name once, and writes only when Telegram's name differs from it.
 */
import type { User } from "telegraf/types";
import { type Translate, translator } from "../../i18n.js";
import { type Locale, localeFromLanguageCode } from "../../model/locale.js";
import type { Payout } from "../../model/payout.js";
import type { UserProfile } from "../../model/staff.js";
import { cleanLine } from "../../model/text.js";
import type { ProfileStore, SessionStore } from "../../store/types.js";

/**
 * The profile of a Telegram user, or undefined when there is no name to show. The language
 * is kept only when Telegram sent one: a missing `language_code` says nothing about it.
 */
export function profileOf(
  user: Pick<User, "first_name" | "username" | "language_code">,
): UserProfile | undefined {
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
  async remember(
    user: Pick<User, "id" | "first_name" | "username" | "language_code">,
  ): Promise<void> {
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

/** User id → first name, for the users whose name the bot knows (see `personName`). */
export async function namesOf(
  store: ProfileStore,
  userIds: readonly number[],
): Promise<Map<number, string>> {
  const profiles = await store.getMany(userIds);
  return new Map([...profiles].map(([id, profile]) => [id, profile.firstName]));
}

/** The names of a payout's initiator and of whoever decided on it (approved or rejected). */
export function payoutPeopleNames(
  store: ProfileStore,
  payout: Pick<Payout, "initiatorId" | "approvedBy" | "rejectedBy">,
): Promise<Map<number, string>> {
  const people = [payout.initiatorId, payout.approvedBy, payout.rejectedBy];
  return namesOf(
    store,
    people.filter((id): id is number => id !== undefined),
  );
}

/** When nothing is known of a reader's language (a group chat, a member who never wrote). */
const UNKNOWN_READER_LOCALE: Locale = "en";

/**
 * `t()` for a person the bot writes to unasked (an approval card, an admin's notice, an
 * alert): the language they chose with /lang; else their Telegram app's language, as seen
 * the last time they wrote to the bot; else English. Never the language of whoever caused
 * the message: an approver reads a French payer's request in their own language.
 */
export async function translatorFor(
  stores: { sessions: SessionStore; profiles: ProfileStore },
  userId: number,
  timeZone: string,
): Promise<Translate> {
  const [chosen, profiles] = await Promise.all([
    stores.sessions.getLocale(userId),
    stores.profiles.getMany([userId]),
  ]);
  const locale = chosen ?? profiles.get(userId)?.locale ?? UNKNOWN_READER_LOCALE;
  return translator(locale, timeZone);
}
