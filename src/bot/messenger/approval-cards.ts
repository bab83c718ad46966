/**
 * What an approval card needs besides its payout, read when it is drawn: the names of the
 * people it mentions and, while it waits, the earlier payout it repeats (the duplicate rule
 * asked again, as Approve will ask it), so that every card says what the payer was told.
 */
import type { Translate } from "../../i18n.js";
import type { Payout } from "../../model/payout.js";
import type { ProfileStore } from "../../store/types.js";
import { waitingView } from "../views/approval.js";
import { type Names, personName, type View } from "../views/common.js";
import { namesOf } from "./people.js";

/** The latest payout `payout` repeats now (Approval.duplicateOf), or undefined. */
export type DuplicateFinder = (payout: Payout) => Promise<Payout | undefined>;

export interface CardFacts {
  names: Names;
  duplicate?: Payout;
}

/** The names on a card of `payout`, and the payout it repeats while it waits for a decision. */
export async function cardFacts(
  profiles: ProfileStore,
  duplicateOf: DuplicateFinder,
  payout: Payout,
): Promise<CardFacts> {
  const duplicate = payout.state === "awaiting_approval" ? await duplicateOf(payout) : undefined;
  const signers = (payout.signatures ?? []).map((signature) => signature.userId);
  const people = [
    payout.initiatorId,
    payout.approvedBy,
    payout.rejectedBy,
    duplicate?.initiatorId,
    ...signers,
  ];
  const names = await namesOf(
    profiles,
    people.filter((id): id is number => id !== undefined),
  );
  return duplicate ? { names, duplicate } : { names };
}

/**
 * The payer's prompt once it waits for approval: who may approve it, by name, and its
 * Withdraw button; the same whether it was confirmed in the chat or with the PIN.
 */
export async function payerWaitingView(
  t: Translate,
  profiles: ProfileStore,
  payout: Payout,
  approverIds: readonly number[],
): Promise<View> {
  const names = await namesOf(profiles, approverIds);
  return waitingView(
    t,
    payout,
    approverIds.map((id) => personName(t, names, id)),
  );
}
