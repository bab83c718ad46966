/**
 * Where the step-up PINs are kept: per staff member, the argon2id hash (never the PIN),
 * the wrong tries in a row and, once they reach the limit, until when the PIN is locked.
 * Each method is one atomic step, so two replicas (or two requests at once) never see a
 * try the other has not counted: a try is taken before the PIN is checked, so however
 * many guesses arrive at once, at most `maxFailures` are ever checked per lock.
 */
import type { PinStatus } from "../model/pin.js";

/** The limits a try is taken and judged under (model/pin.ts holds the defaults). */
export interface PinLimits {
  nowMs: number;
  maxFailures: number;
  lockMs: number;
}

export type PinTry =
  /** Nothing to check against: set one first. */
  | { outcome: "none" }
  /** `justLocked`: this try was one more than the limit allows at once, and locked it. */
  | { outcome: "locked"; untilMs: number; justLocked: boolean }
  /** A try is counted; check the PIN against `hash`, then call `finishTry`. */
  | { outcome: "try"; hash: string };

export type PinTryResult =
  | { outcome: "right" }
  /** Wrong; `left` more tries before the lock. */
  | { outcome: "wrong"; left: number }
  /**
   * Wrong, and the PIN is now locked until `untilMs`. `justLocked`: this try locked it (the
   * admins' alert was queued in the same step); false when another try already had.
   */
  | { outcome: "locked"; untilMs: number; justLocked: boolean };

export interface PinStore {
  status(userId: number, nowMs: number): Promise<PinStatus>;
  /** Keeps `hash` as the PIN of `userId` only when none is set; false when one is. */
  setIfNone(userId: number, hash: string, nowMs: number): Promise<boolean>;
  /** Counts a try (or says why none may be made); see PinTry. */
  beginTry(userId: number, limits: PinLimits): Promise<PinTry>;
  /**
   * Ends a try begun with `beginTry`: right clears the count; wrong keeps it and, at
   * `maxFailures`, locks the PIN for `lockMs` and queues the `pin_locked` notice (the
   * admins' alert) in the outbox in the same atomic step.
   */
  finishTry(userId: number, right: boolean, limits: PinLimits): Promise<PinTryResult>;
  /** Forgets the PIN, its tries and its lock (an admin's reset); false when there was none. */
  reset(userId: number): Promise<boolean>;
}
