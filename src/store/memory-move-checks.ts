/**
 * The checks of a payout move in memory that the Redis script makes before its first write
 * (after the initiator's and a resend's): the lifecycle allows the event, a batch's row is
 * claimed only while its batch runs, the prompt has not expired, and no second person is
 * needed. Pure: the memory store runs them inside its own synchronous step.
 */
import type { BatchState } from "../model/batch.js";
import { nextState, type PayoutEvent, targetOf } from "../model/lifecycle.js";
import type { Payout } from "../model/payout.js";
import type { TransitionOptions } from "./payout-store.js";

export type MoveRefusal = "wrong_state" | "batch_stopped" | "expired" | "needs_approval";

/** Why `event` may not move `current` now, or null when it may. */
export function moveRefusal(
  current: Payout,
  event: PayoutEvent,
  expect: TransitionOptions["expect"],
  batchState: (batchId: string) => BatchState | null,
): MoveRefusal | null {
  if (nextState(current.state, event) === null) return "wrong_state";
  const claimsRow = targetOf(event) === "submitting" && current.batchId !== undefined;
  if (claimsRow && batchState(current.batchId ?? "") !== "running") return "batch_stopped";
  if (expect?.notExpiredAtMs !== undefined && current.expiresAtMs < expect.notExpiredAtMs) {
    return "expired";
  }
  if (expect?.amountBelowXaf !== undefined && current.amount >= expect.amountBelowXaf) {
    return "needs_approval";
  }
  return null;
}
