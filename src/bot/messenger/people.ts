/**
 * People as messages name and address them: staff names by id (as payouts/people.ts
 * remembers them from Telegram), and the language a reader is written to in.
 */
import { type Translate, translator } from "../../i18n.js";
import type { Locale } from "../../model/locale.js";
import type { Payout } from "../../model/payout.js";
import type { ProfileStore, SessionStore } from "../../store/types.js";

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
  payout: Pick<Payout, "initiatorId" | "approvedBy" | "rejectedBy" | "signatures">,
): Promise<Map<number, string>> {
  const signers = (payout.signatures ?? []).map((signature) => signature.userId);
  const people = [payout.initiatorId, payout.approvedBy, payout.rejectedBy, ...signers];
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
