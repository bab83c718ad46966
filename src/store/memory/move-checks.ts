/**
 * The checks a payout move in memory makes before it writes, as payout-transition.lua
 * makes them before its first write: pure functions the memory store runs inside its own
 * synchronous step.
 */
import { addSignature } from "../../model/approval-rules.js";
import type { BatchState } from "../../model/batch.js";
import { nextState, type PayoutEvent, targetOf } from "../../model/lifecycle.js";
import type { Payout } from "../../model/payout.js";
import type { Role } from "../../model/roles.js";
import type { TransitionOptions } from "../types.js";

/**
 * The checks of a payout move in memory that the Redis script makes before its first write
 * (after the initiator's and a resend's): the lifecycle allows the event, a batch's row is
 * claimed only while its batch runs, the initiator and the decider stand as asked, the
 * prompt has not expired, and no second person is needed. Pure: the memory store runs them inside its own synchronous step.
 */
export type MoveRefusal =
  | "wrong_state"
  | "batch_stopped"
  | "initiator_not_allowed"
  | "decider_not_allowed"
  | "decider_too_new"
  | "expired"
  | "needs_approval";

/** What the move reads besides the payout: a batch's state, a member's standing now. */
export interface MoveReads {
  batchState: (batchId: string) => BatchState | null;
  standing: (userId: number) => { role: Role; grantedAtMs?: number } | null;
}

/** Why `event` may not move `current` now, or null when it may. */
export function moveRefusal(
  current: Payout,
  event: PayoutEvent,
  expect: TransitionOptions["expect"],
  reads: MoveReads,
): MoveRefusal | null {
  if (nextState(current.state, event) === null) return "wrong_state";
  const claimsRow = targetOf(event) === "submitting" && current.batchId !== undefined;
  if (claimsRow && reads.batchState(current.batchId ?? "") !== "running") return "batch_stopped";
  if (expect?.initiatorRoles !== undefined) {
    const role = reads.standing(current.initiatorId)?.role;
    if (role === undefined || !expect.initiatorRoles.includes(role)) return "initiator_not_allowed";
  }
  if (expect?.decider !== undefined) {
    const standing = reads.standing(expect.decider.userId);
    if (!standing || !expect.decider.roles.includes(standing.role)) return "decider_not_allowed";
    if ((standing.grantedAtMs ?? 0) > current.createdAtMs) return "decider_too_new";
  }
  if (expect?.notExpiredAtMs !== undefined && current.expiresAtMs < expect.notExpiredAtMs) {
    return "expired";
  }
  if (expect?.amountBelowXaf !== undefined && current.amount >= expect.amountBelowXaf) {
    return "needs_approval";
  }
  return null;
}

/**
 * An approval by signatures (TransitionOptions.signature): the earlier signatures whose
 * signer still stands in the decider's roles (and did when the payout was asked for), with
 * the decider's own added at `nowMs`, and whether that one is the last the rule needs;
 * `already_signed` when the decider is among them; undefined without a signature asked.
 */
export function countSignatures(
  current: Payout,
  options: TransitionOptions,
  reads: MoveReads,
  nowMs: number,
): { signatures: NonNullable<Payout["signatures"]>; last: boolean } | "already_signed" | undefined {
  const decider = options.expect?.decider;
  if (options.signature === undefined || decider === undefined) return undefined;
  const rule = { signatures: options.signature.needed, roles: decider.roles };
  const signer = { userId: decider.userId, atMs: nowMs };
  const added = addSignature(current.signatures, signer, rule, current.createdAtMs, (id) =>
    reads.standing(id),
  );
  if (added.outcome === "already_signed") return "already_signed";
  return { signatures: added.signatures, last: added.outcome === "last" };
}
