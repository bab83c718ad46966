/**
 * Remembers how Telegram names each staff member, so that /history and /unknown can say
 * who made a payout ("by Ama") rather than a bare id. Cheap on the hot path: each process
 * reads a member's stored name once, and writes only when Telegram's name differs from it.
 */
import type { User } from "telegraf/types";
import { type Translate, translator } from "../i18n.js";
import type { Payout } from "../model/payout.js";
import type { UserProfile } from "../model/staff.js";
import { cleanLine } from "../model/text.js";
import type { ProfileStore, SessionStore } from "../store/types.js";

/** The profile of a Telegram user, or undefined when there is no name to show. */
export function profileOf(user: Pick<User, "first_name" | "username">): UserProfile | undefined {
  // One clean line of at most 64 characters (Telegram's own limit on a first name).
  const firstName = cleanLine(user.first_name, 64);
  if (firstName === undefined) return undefined;
  return user.username === undefined ? { firstName } : { firstName, username: user.username };
}

function sameProfile(a: UserProfile | undefined, b: UserProfile): boolean {
  return a?.firstName === b.firstName && a.username === b.username;
}

export class StaffNames {
  readonly #store: ProfileStore;
  /** What the store holds for each member this process has seen (staff only: a few). */
  readonly #known = new Map<number, UserProfile>();

  constructor(store: ProfileStore) {
    this.#store = store;
  }

  /** Records `user`'s name when it is not the one stored: one write per change. */
  async remember(user: Pick<User, "id" | "first_name" | "username">): Promise<void> {
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

/** User id → first name, for the users whose name the bot knows (see `initiatorName`). */
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

/** `t()` for a staff member, in the language they chose (English until they choose). */
export async function translatorFor(
  sessions: SessionStore,
  userId: number,
  timeZone: string,
): Promise<Translate> {
  return translator((await sessions.getLocale(userId)) ?? "en", timeZone);
}
