/**
 * Where the step-up PINs are kept: per staff member, the argon2id hash (never the PIN),
 * the wrong tries in a row, the times of the tries in the sliding window, the wrong tries
 * the person has not been told of, when it was last reset and, once a limit is reached,
 * until when the PIN is locked. Each method is one atomic step, so two replicas (or two
 * requests at once) never see a try the other has not counted: a try is taken before the
 * PIN is checked, so however many guesses arrive at once, at most `maxFailures` in a row
 * (and `windowMaxFailures` in the window) are ever checked per lock.
 */
import type { PinStatus } from "../model/pin.js";

/** The limits a try is taken and judged under (model/pin.ts holds the defaults). */
export interface PinLimits {
  nowMs: number;
  /** Wrong tries in a row that lock it. */
  maxFailures: number;
  /** Wrong tries within `windowMs` (right ones in between or not) that lock it too. */
  windowMaxFailures: number;
  windowMs: number;
  lockMs: number;
}

export type PinTry =
  /** Nothing to check against: set one first. */
  | { outcome: "none" }
  /** `justLocked`: this try was one more than the limits allow, and locked it. */
  | { outcome: "locked"; untilMs: number; justLocked: boolean }
  /**
   * A try is counted (at `limits.nowMs`); check the PIN against `hash`, then call
   * `finishTry` with this. `unseenWrong`: wrong tries the person has not been told of yet,
   * the last at `lastWrongAtMs`.
   */
  | { outcome: "try"; hash: string; atMs: number; unseenWrong: number; lastWrongAtMs: number };

export type PinTryBegun = Extract<PinTry, { outcome: "try" }>;

export type PinTryResult =
  /**
   * Right: the count in a row is cleared and the try leaves the window. `toldOfWrong`: the
   * unseen wrong tries the `pin_wrong_tries` notice, queued in the same step, tells of (0:
   * none, nothing queued).
   */
  | { outcome: "right"; toldOfWrong: number }
  /** Wrong; `left` more tries before the lock. */
  | { outcome: "wrong"; left: number }
  /**
   * Wrong, and the PIN is now locked until `untilMs`. `justLocked`: this try locked it (the
   * admins' alert was queued in the same step); false when another try already had.
   */
  | { outcome: "locked"; untilMs: number; justLocked: boolean };

export type PinSetOutcome =
  /** `afterReset`: the first since a reset (the admins' `pin_renewed` notice is queued). */
  | { outcome: "set"; afterReset: boolean }
  | { outcome: "already_set" }
  /** A lock kept by a reset has not passed yet. */
  | { outcome: "locked"; untilMs: number }
  /** The first PIN after a reset, asked with init data signed before that reset. */
  | { outcome: "stale" };

export interface PinStore {
  status(userId: number, nowMs: number): Promise<PinStatus>;
  /**
   * Keeps `hash` as the PIN of `userId` only when none is set, no lock holds, and (after a
   * reset) `signedAtMs` (the init data's `auth_date`, whole seconds) is not before the
   * reset's second. The first after a reset queues `pin_renewed` in the same step.
   */
  setIfNone(
    userId: number,
    hash: string,
    at: { nowMs: number; signedAtMs: number },
  ): Promise<PinSetOutcome>;
  /** Counts a try (or says why none may be made); see PinTry. */
  beginTry(userId: number, limits: PinLimits): Promise<PinTry>;
  /**
   * Ends a try begun with `beginTry`: right clears the count in a row, takes the try out of
   * the window and queues the unseen wrong tries' notice; wrong keeps them and, at
   * `maxFailures` in a row or `windowMaxFailures` in the window, locks the PIN for `lockMs`
   * (both counts start again) and queues the `pin_locked` notice (the admins' alert) in the
   * outbox in the same atomic step.
   */
  finishTry(
    userId: number,
    right: boolean,
    begun: PinTryBegun,
    limits: PinLimits,
  ): Promise<PinTryResult>;
  /**
   * Forgets the PIN, its tries and its window, and queues the `pin_reset` notice by
   * `byUserId` (0: the console) in the same step; a lock holds on until it ends, and the
   * reset's time is kept for `setIfNone`. False when there was no PIN (nothing queued).
   */
  reset(userId: number, by: { byUserId: number; nowMs: number }): Promise<boolean>;
}
