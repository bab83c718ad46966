/**
 * Who may do what: the one place that knows what each role allows. Features and payout
 * steps ask it; nothing else compares roles. Pure: the caller reads the asker's role
 * afresh (on every update, at every press) and passes it in.
 */
import type { Payout } from "../model/payout.js";
import { ROLES, type Role } from "../model/roles.js";
import type { StaffMember } from "../model/staff.js";

export type Capability =
  /** Payment status, history, operator availability. */
  | "read"
  /** Start payouts and collections, look up registered names. */
  | "pay"
  /** Decide on other people's payouts that wait for a second person. */
  | "approve"
  /** Everyone's payouts, not only one's own. */
  | "see_everyone"
  /** Settle payouts whose outcome is unknown. */
  | "resolve"
  /** Add, change and remove staff. */
  | "manage_staff"
  /** Be told when something needs a person (stuck, mismatched, stranded payouts). */
  | "receive_alerts"
  /** Download everyone's payouts and collections of a period as a CSV file. */
  | "export"
  /** Read the audit trail, in the chat and as a CSV file. */
  | "audit"
  /** Everyone's spending against the daily limits, not only one's own (/limits). */
  | "see_all_spending"
  /** Stop anyone's running batch (a payer stops only their own). */
  | "stop_any_batch"
  /** See, pause, resume and replay the signed events to the business's systems (/events). */
  | "manage_events"
  /** Forget any saved recipient (a payer forgets only the ones they saved). */
  | "forget_any_recipient";

const ALLOWED: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  admin: new Set<Capability>([
    "read",
    "pay",
    "approve",
    "see_everyone",
    "resolve",
    "manage_staff",
    "receive_alerts",
    "export",
    "audit",
    "see_all_spending",
    "stop_any_batch",
    "manage_events",
    "forget_any_recipient",
  ]),
  approver: new Set<Capability>(["read", "pay", "approve"]),
  payer: new Set<Capability>(["read", "pay"]),
  viewer: new Set<Capability>(["read", "see_everyone", "export"]),
};

/** Someone asking: a staff member, or null for anyone else. */
export type Asker = Pick<StaffMember, "userId" | "role"> | null;

function roleOf(who: Asker | Role): Role | undefined {
  if (who === null) return undefined;
  return typeof who === "string" ? who : who.role;
}

/** Whether `who` (a member, a bare role, or null for a stranger) has `capability`. */
export function may(who: Asker | Role, capability: Capability): boolean {
  const role = roleOf(who);
  return role !== undefined && ALLOWED[role].has(capability);
}

/** A payout is shown to the person who started it and to those who see everyone's. */
export function maySee(who: Asker, payout: Payout): boolean {
  return who !== null && (payout.initiatorId === who.userId || may(who, "see_everyone"));
}

export type PressVerdict = "allowed" | "not_allowed" | "not_yours";

/**
 * Confirm on a prompt: only its initiator, and only while their role still lets them pay (a
 * payer demoted since the prompt was shown cannot confirm it). Answers the initiator the
 * prompt must have for `who` to confirm it (the store checks it in the claim's own atomic
 * step), or null when `who` may confirm nothing.
 */
export function confirmableBy(who: Asker): number | null {
  return who !== null && may(who, "pay") ? who.userId : null;
}

/** Cancel on a prompt: its initiator only, whatever their role now (cancelling is safe). */
export function mayCancel(who: Asker, payout: Pick<Payout, "initiatorId">): PressVerdict {
  if (who === null) return "not_allowed";
  return payout.initiatorId === who.userId ? "allowed" : "not_yours";
}

export type DecideVerdict = "allowed" | "not_allowed" | "own_payout";

/**
 * Approve or Reject a payout waiting for a second person: whoever's role may approve at
 * the moment of the press (the caller reads it afresh), and never its initiator, even an
 * admin or an approver: four eyes, not two.
 */
export function mayDecide(
  who: Asker,
  payout: Pick<Payout, "initiatorId" | "approvalRule">,
): DecideVerdict {
  if (who === null || !may(who, "approve")) return "not_allowed";
  // A band of APPROVAL_RULES may name fewer roles (admins only): the others may not sign.
  if (payout.approvalRule && !payout.approvalRule.roles.includes(who.role)) return "not_allowed";
  return payout.initiatorId === who.userId ? "own_payout" : "allowed";
}

/**
 * Those among `staff` who may decide on `payout` now (approvers and admins, or the roles
 * of its approval rule's band; never its initiator).
 */
export function decidersOf<T extends NonNullable<Asker>>(
  staff: readonly T[],
  payout: Pick<Payout, "initiatorId" | "approvalRule">,
): T[] {
  return staff.filter((member) => mayDecide(member, payout) === "allowed");
}

/** The roles that may pay now: the store checks a payout's initiator has one at each claim. */
export const PAYING_ROLES: readonly Role[] = ROLES.filter((role) => may(role, "pay"));

/** The roles that may decide on someone else's payout (checked by the store at Approve). */
export const DECIDING_ROLES: readonly Role[] = ROLES.filter((role) => may(role, "approve"));

/** Whether `amount` needs a second person under `thresholdXaf` (undefined: approvals off). */
export function needsApproval(amount: number, thresholdXaf: number | undefined): boolean {
  return thresholdXaf !== undefined && amount >= thresholdXaf;
}

/** Stop a running batch: its initiator, or whoever may stop anyone's (admins). */
export function mayStopBatch(who: Asker, batch: { initiatorId: number }): boolean {
  if (who === null) return false;
  return batch.initiatorId === who.userId || may(who, "stop_any_batch");
}

/** A batch is shown to its initiator and to those who see everyone's payouts. */
export function maySeeBatch(who: Asker, batch: { initiatorId: number }): boolean {
  return who !== null && (batch.initiatorId === who.userId || may(who, "see_everyone"));
}
