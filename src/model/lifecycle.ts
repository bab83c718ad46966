/**
 * The payout lifecycle of shared/DESIGN.md as data: states, events and the one table of
 * allowed moves. Pure (no I/O). The stores enforce the same table atomically (compare-and
 * -set on the current state), so a move that is not in this table can never happen.
 */

export const PAYOUT_STATES = [
  "awaiting_confirmation",
  "awaiting_approval",
  "submitting",
  "pending",
  "unknown",
  "cancelled",
  "expired",
  "rejected",
  "rejected_by_api",
  "success",
  "failed",
  "canceled",
] as const;
export type PayoutState = (typeof PAYOUT_STATES)[number];

export const PAYOUT_EVENTS = [
  /** The initiator pressed Confirm; the amount needs no approval. */
  "confirm",
  /** The initiator pressed Confirm; the amount is at or over the approval threshold. */
  "request_approval",
  "cancel",
  "expire",
  /** An approver (not the initiator) approved. */
  "approve",
  /** An approver rejected. */
  "reject",
  /** The initiator withdrew their own request while it waited for approval. */
  "withdraw",
  /**
   * Its initiator was removed from staff, or given a role that may not pay, while it was
   * still open (a prompt, or a request waiting for approval): an admin's staff change.
   */
  "initiator_removed",
  /** The API answered 201: the payment exists and is pending. */
  "accepted",
  /** The API refused (400, 401, 403, 404, 429 after retries): nothing was created. */
  "refused",
  /** The request may have reached the API and the answer was lost. Never retried. */
  "lost",
  /** The 201 of the very claim of a payout already marked unknown arrived after all. */
  "accepted_late",
  /** The API itself reports a final status (after a webhook hint or a poll). */
  "settle_success",
  "settle_failed",
  "settle_canceled",
  /** An admin found the payment in the merchant portal and gave its id. */
  "resolve_with_id",
  /** An admin established that the payment was not made. */
  "resolve_failed",
] as const;
export type PayoutEvent = (typeof PAYOUT_EVENTS)[number];

/** from state → event → to state. Anything missing is forbidden. */
export const TRANSITIONS: Readonly<
  Record<PayoutState, Readonly<Partial<Record<PayoutEvent, PayoutState>>>>
> = {
  awaiting_confirmation: {
    confirm: "submitting",
    request_approval: "awaiting_approval",
    cancel: "cancelled",
    expire: "expired",
    initiator_removed: "cancelled",
  },
  awaiting_approval: {
    approve: "submitting",
    reject: "rejected",
    expire: "expired",
    withdraw: "cancelled",
    initiator_removed: "cancelled",
  },
  submitting: { accepted: "pending", refused: "rejected_by_api", lost: "unknown" },
  pending: { settle_success: "success", settle_failed: "failed", settle_canceled: "canceled" },
  unknown: { resolve_with_id: "pending", resolve_failed: "failed", accepted_late: "pending" },
  cancelled: {},
  expired: {},
  rejected: {},
  rejected_by_api: {},
  success: {},
  failed: {},
  canceled: {},
};

/** The state `event` leads to from `state`, or null when the move is forbidden. */
export function nextState(state: PayoutState, event: PayoutEvent): PayoutState | null {
  return TRANSITIONS[state][event] ?? null;
}

/** Every state from which `event` is allowed (what a compare-and-set must find). */
export function sourcesOf(event: PayoutEvent): PayoutState[] {
  return PAYOUT_STATES.filter((state) => TRANSITIONS[state][event] !== undefined);
}

/** The single state `event` leads to (each event has one target in the table). */
export function targetOf(event: PayoutEvent): PayoutState {
  for (const state of PAYOUT_STATES) {
    const target = TRANSITIONS[state][event];
    if (target) return target;
  }
  throw new Error(`event ${event} leads nowhere`);
}

/** No move leaves a terminal state. */
export function isTerminal(state: PayoutState): boolean {
  return Object.keys(TRANSITIONS[state]).length === 0;
}

/** States in which money may have moved or may still move: tracked until final. */
export function isInFlight(state: PayoutState): boolean {
  return state === "submitting" || state === "pending" || state === "unknown";
}

/** The event that settles a payout at the API's final status. */
export function settleEventFor(status: "success" | "failed" | "canceled"): PayoutEvent {
  return status === "success"
    ? "settle_success"
    : status === "failed"
      ? "settle_failed"
      : "settle_canceled";
}

/**
 * The states whose payouts are kept in a set of their own (`listInState`, `idsInState`):
 * the in-flight ones, followed to a final state, and `awaiting_approval`, for the
 * approvers' list and the expiry of approvals nobody decided.
 */
export type TrackedState = Extract<
  PayoutState,
  "awaiting_approval" | "unknown" | "pending" | "submitting"
>;

/** The states `listInState` answers for, each kept in its own set. */
export const TRACKED_STATES: readonly TrackedState[] = PAYOUT_STATES.filter(
  (state): state is TrackedState => isInFlight(state) || state === "awaiting_approval",
);

/** Whether payouts in `state` are kept in a state set (see TRACKED_STATES). */
export function isTracked(state: PayoutState): state is TrackedState {
  return (TRACKED_STATES as readonly PayoutState[]).includes(state);
}

/**
 * A payout expires `retentionMs` after its last move unless money may be moving (in
 * flight): those are kept until they reach a final state, however long that takes.
 */
export function expiresInState(state: PayoutState): boolean {
  return !isInFlight(state);
}

/** Moving into one of these queues the payer's notification in the outbox. */
export function notifiesPayer(state: PayoutState): boolean {
  return state === "success" || state === "failed" || state === "canceled";
}

/**
 * Moving into one of these gives the amount a payout reserved against the day's spending
 * limits back: nothing was paid (failed, refused, rejected, cancelled or expired). A payout
 * reserves at Confirm, and no move leaves these states, so it is given back at most once.
 */
export function givesBack(state: PayoutState): boolean {
  return (
    state === "failed" ||
    state === "canceled" ||
    state === "rejected" ||
    state === "rejected_by_api" ||
    state === "cancelled" ||
    state === "expired"
  );
}
