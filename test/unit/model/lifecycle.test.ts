import { describe, expect, it } from "vitest";
import {
  givesBack,
  isInFlight,
  isTerminal,
  isTracked,
  nextState,
  PAYOUT_EVENTS,
  PAYOUT_STATES,
  type PayoutEvent,
  type PayoutState,
  settleEventFor,
  sourcesOf,
  targetOf,
} from "../../../src/model/lifecycle.js";

/**
 * The lifecycle table of shared/DESIGN.md, written out by hand (not read from TRANSITIONS):
 * every allowed move as [from, event, to]. Anything not listed must be forbidden.
 */
const DESIGN_MOVES: ReadonlyArray<
  readonly [from: PayoutState, event: PayoutEvent, to: PayoutState]
> = [
  // Confirm by the initiator, amount under the approval threshold.
  ["awaiting_confirmation", "confirm", "submitting"],
  // Confirm, amount at or over the threshold (APPROVAL_THRESHOLD_XAF).
  ["awaiting_confirmation", "request_approval", "awaiting_approval"],
  // Cancel / TTL passed.
  ["awaiting_confirmation", "cancel", "cancelled"],
  ["awaiting_confirmation", "expire", "expired"],
  // An approver (not the initiator) approves / rejects.
  ["awaiting_approval", "approve", "submitting"],
  ["awaiting_approval", "reject", "rejected"],
  // The initiator withdraws their own request while it waits.
  ["awaiting_approval", "withdraw", "cancelled"],
  // An admin removed or demoted the initiator while it was open: a prompt or a request.
  ["awaiting_confirmation", "initiator_removed", "cancelled"],
  ["awaiting_approval", "initiator_removed", "cancelled"],
  // APPROVAL_TTL_HOURS passed: one that no approver answers does not wait forever.
  ["awaiting_approval", "expire", "expired"],
  // API answers 201 / refuses / the answer is lost (never retried).
  ["submitting", "accepted", "pending"],
  ["submitting", "refused", "rejected_by_api"],
  ["submitting", "lost", "unknown"],
  // The API itself reports a final status.
  ["pending", "settle_success", "success"],
  ["pending", "settle_failed", "failed"],
  ["pending", "settle_canceled", "canceled"],
  // An admin resolves it with a payment id / marks it failed.
  ["unknown", "resolve_with_id", "pending"],
  ["unknown", "resolve_failed", "failed"],
  // The 201 of the same claim arrives after the payout was marked unknown (issue 9).
  ["unknown", "accepted_late", "pending"],
];

const ALL_STATES: readonly PayoutState[] = [
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
];

const ALL_EVENTS: readonly PayoutEvent[] = [
  "confirm",
  "request_approval",
  "cancel",
  "expire",
  "approve",
  "reject",
  "withdraw",
  "initiator_removed",
  "accepted",
  "refused",
  "lost",
  "accepted_late",
  "settle_success",
  "settle_failed",
  "settle_canceled",
  "resolve_with_id",
  "resolve_failed",
];

const TERMINAL: readonly PayoutState[] = [
  "cancelled",
  "expired",
  "rejected",
  "rejected_by_api",
  "success",
  "failed",
  "canceled",
];

function expectedNext(state: PayoutState, event: PayoutEvent): PayoutState | null {
  return DESIGN_MOVES.find(([from, on]) => from === state && on === event)?.[2] ?? null;
}

const EVERY_PAIR = ALL_STATES.flatMap((state) =>
  ALL_EVENTS.map((event) => [state, event, expectedNext(state, event)] as const),
);

describe("payout lifecycle", () => {
  it("has exactly the states and events of the design", () => {
    expect([...PAYOUT_STATES].sort()).toEqual([...ALL_STATES].sort());
    expect([...PAYOUT_EVENTS].sort()).toEqual([...ALL_EVENTS].sort());
  });

  describe("nextState", () => {
    it("is checked for every one of the 204 (state, event) pairs", () => {
      expect(EVERY_PAIR).toHaveLength(12 * 17);
    });

    it.each(EVERY_PAIR.filter(([, , to]) => to !== null))(
      "moves %s on %s to %s",
      (state, event, to) => {
        expect(nextState(state, event)).toBe(to);
      },
    );

    it.each(EVERY_PAIR.filter(([, , to]) => to === null))("forbids %s on %s", (state, event) => {
      expect(nextState(state, event)).toBeNull();
    });

    it("never moves back to awaiting_confirmation or into submitting from after it", () => {
      for (const [state, event] of EVERY_PAIR) {
        const to = nextState(state, event);
        expect(to).not.toBe("awaiting_confirmation");
        if (to === "submitting")
          expect(["awaiting_confirmation", "awaiting_approval"]).toContain(state);
      }
    });
  });

  describe("sourcesOf", () => {
    it.each(ALL_EVENTS)("lists every state that allows %s", (event) => {
      const expected = DESIGN_MOVES.filter(([, on]) => on === event).map(([from]) => from);
      expect([...sourcesOf(event)].sort()).toEqual([...expected].sort());
    });
  });

  describe("targetOf", () => {
    const targets: ReadonlyArray<readonly [PayoutEvent, PayoutState]> = [
      ["confirm", "submitting"],
      ["request_approval", "awaiting_approval"],
      ["cancel", "cancelled"],
      ["expire", "expired"],
      ["approve", "submitting"],
      ["reject", "rejected"],
      ["withdraw", "cancelled"],
      ["initiator_removed", "cancelled"],
      ["accepted", "pending"],
      ["refused", "rejected_by_api"],
      ["lost", "unknown"],
      ["accepted_late", "pending"],
      ["settle_success", "success"],
      ["settle_failed", "failed"],
      ["settle_canceled", "canceled"],
      ["resolve_with_id", "pending"],
      ["resolve_failed", "failed"],
    ];

    it("covers every event", () => {
      expect(targets.map(([event]) => event).sort()).toEqual([...ALL_EVENTS].sort());
    });

    it.each(targets)("sends %s to %s", (event, target) => {
      expect(targetOf(event)).toBe(target);
    });

    it.each(ALL_EVENTS)("gives %s the same target from every state that allows it", (event) => {
      for (const [from, on, to] of DESIGN_MOVES) {
        if (on === event) expect(targetOf(event), `from ${from}`).toBe(to);
      }
    });
  });

  describe("isTerminal", () => {
    it.each(ALL_STATES.map((state) => [state, TERMINAL.includes(state)] as const))(
      "says %s is terminal: %s",
      (state, terminal) => {
        expect(isTerminal(state)).toBe(terminal);
      },
    );

    it.each(TERMINAL)("allows no event at all from %s", (state) => {
      for (const event of ALL_EVENTS) expect(nextState(state, event)).toBeNull();
    });
  });

  describe("isInFlight", () => {
    const inFlight: readonly PayoutState[] = ["submitting", "pending", "unknown"];

    it.each(ALL_STATES.map((state) => [state, inFlight.includes(state)] as const))(
      "says %s is in flight: %s",
      (state, expected) => {
        expect(isInFlight(state)).toBe(expected);
      },
    );
  });

  describe("isTracked", () => {
    const tracked: readonly PayoutState[] = [
      "awaiting_approval",
      "submitting",
      "pending",
      "unknown",
    ];

    it.each(ALL_STATES.map((state) => [state, tracked.includes(state)] as const))(
      "says %s is kept in a state set: %s",
      (state, expected) => {
        expect(isTracked(state)).toBe(expected);
      },
    );
  });

  describe("givesBack", () => {
    // Nothing was paid: a reserved amount goes back to the day's limits.
    const giving: readonly PayoutState[] = [
      "cancelled",
      "expired",
      "rejected",
      "rejected_by_api",
      "failed",
      "canceled",
    ];

    it.each(ALL_STATES.map((state) => [state, giving.includes(state)] as const))(
      "says moving into %s gives the amount back: %s",
      (state, expected) => {
        expect(givesBack(state)).toBe(expected);
      },
    );

    it("gives back only from terminal states, so a payout gives back at most once", () => {
      for (const state of giving) expect(isTerminal(state)).toBe(true);
    });
  });

  describe("settleEventFor", () => {
    it.each([
      ["success", "settle_success"],
      ["failed", "settle_failed"],
      ["canceled", "settle_canceled"],
    ] as const)("settles the API status %s with %s", (status, event) => {
      expect(settleEventFor(status)).toBe(event);
      expect(nextState("pending", settleEventFor(status))).toBe(status);
    });
  });
});
