/**
 * What a decision on a payout waiting for approval asks the store to check of the people,
 * atomically with its move, and how the store's refusals read as a press's answer.
 */

import type { Role } from "../model/roles.js";
import type { StaffMember } from "../model/staff.js";
import type { TransitionOptions, TransitionResult } from "../store/types.js";
import { DECIDING_ROLES, PAYING_ROLES } from "./policy.js";
import type { DecideRefusal } from "./types.js";
import { lostRace } from "./types.js";

/** A staff member pressing Approve or Reject, their role as read for this very press. */
export type Approver = Pick<StaffMember, "userId" | "role">;

/**
 * From the staff record now: the decider may decide and got that role no later than the
 * payout was asked for (so nobody approves their own payout with an account made approver
 * afterwards), in one of `roles` (its approval rule's band); for an approval (`initiatorToo`), the initiator may still pay (removed or
 * demoted since: nothing is sent).
 */
export function standingExpected(
  approver: Approver,
  initiatorToo: boolean,
  roles: readonly Role[] = DECIDING_ROLES,
): NonNullable<TransitionOptions["expect"]> {
  return {
    decider: { userId: approver.userId, roles },
    ...(initiatorToo ? { initiatorRoles: PAYING_ROLES } : {}),
  };
}

/** A decision the store refused: why, in the words of a press. */
export function decideRefusal(result: Extract<TransitionResult, { ok: false }>): DecideRefusal {
  switch (result.reason) {
    case "decider_not_allowed":
      return { outcome: "forbidden", payout: result.payout, why: "not_allowed" };
    case "decider_too_new":
      return { outcome: "forbidden", payout: result.payout, why: "too_new" };
    case "initiator_not_allowed":
      return { outcome: "forbidden", payout: result.payout, why: "initiator_gone" };
    default:
      return lostRace(result);
  }
}
