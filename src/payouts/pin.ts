/**
 * The step-up PIN's steps: set on first use (typed twice), checked before a big payout
 * is confirmed or approved, reset by another admin (or the server's console). Five wrong
 * tries in a row, or ten within 24 hours, lock it for 15 minutes and alert the admins (the
 * store queues the alert with the lock); a right one tells the person of the wrong tries
 * since their last. A reset keeps a lock, tells the person and the admins, and the first
 * PIN set after it is announced to the admins. Every set, reset, wrong try and lock is
 * audited. A right PIN gives a `PinProof` for that person,
 * which is what the confirm and approve steps ask of a payout at or over
 * STEP_UP_THRESHOLD_XAF; nothing else makes one.
 */
import { type Actor, SYSTEM_ACTOR, staffActor } from "../model/audit.js";
import type { Payout } from "../model/payout.js";
import {
  isPin,
  PIN_LOCK_MS,
  PIN_MAX_FAILURES,
  PIN_WINDOW_MAX_FAILURES,
  PIN_WINDOW_MS,
  type PinStatus,
} from "../model/pin.js";
import type { StaffMember } from "../model/staff.js";
import type { PinLimits, Stores } from "../store/types.js";
import type { PinHasher } from "./pin-hash.js";
import { type Asker, may } from "./policy.js";

const PROOFS = new WeakSet<object>();
/** How long a right PIN counts for the Confirm it was typed for. */
const PIN_PROOF_TTL_MS = 60_000;

/**
 * That `userId` typed their right PIN just now. Made only by `Pins.check`, and only once
 * per right PIN; the steps check it is the asker's own (`isPinProof`).
 */
export interface PinProof {
  readonly userId: number;
  readonly atMs: number;
}

/** True when `proof` was made by `Pins.check` for `userId` (not a look-alike object). */
export function isPinProof(proof: PinProof | undefined, userId: number): boolean {
  return proof !== undefined && PROOFS.has(proof) && proof.userId === userId;
}

/**
 * Holds (nothing moves) the initiator's Confirm of a payout at or over the step-up
 * `threshold` without their fresh PinProof: `{ outcome: "step_up_required" }`, else null.
 * Amounts never change and no payout returns to awaiting confirmation, so this read sees
 * what the claim after it will; other presses go on to the claim, which refuses them for
 * what they are (not theirs, expired, already moved).
 */
export async function stepUpHold(
  context: { stores: Pick<Stores, "payouts">; now: () => number },
  request: { threshold: number | undefined; payoutId: string; asker: Asker; pin?: PinProof },
): Promise<{ outcome: "step_up_required"; payout: Payout } | null> {
  const { threshold, payoutId, asker, pin } = request;
  if (threshold === undefined || asker === null) return null;
  if (hasFreshProof(pin, asker.userId, context.now())) return null;
  const payout = await context.stores.payouts.get(payoutId);
  const held = payout?.state === "awaiting_confirmation" && payout.initiatorId === asker.userId;
  if (!held || !approvalNeedsPin(threshold, payout, asker, pin, context.now())) return null;
  return { outcome: "step_up_required", payout };
}

function hasFreshProof(pin: PinProof | undefined, userId: number, nowMs: number): boolean {
  return pin !== undefined && nowMs - pin.atMs <= PIN_PROOF_TTL_MS && isPinProof(pin, userId);
}

/**
 * True when approving `payout` takes the approver's PIN and `pin` is not their fresh
 * proof: a big payout's Approve, pressed in the chat or forged, decides nothing.
 */
export function approvalNeedsPin(
  threshold: number | undefined,
  payout: { amount: number; kind?: Payout["kind"] },
  approver: { userId: number },
  pin: PinProof | undefined,
  nowMs: number,
): boolean {
  // Money going out only: a collection asks a customer to pay, on their own phone.
  if (payout.kind === "collection") return false;
  if (threshold === undefined || payout.amount < threshold) return false;
  return !hasFreshProof(pin, approver.userId, nowMs);
}

export type PinSetResult =
  | { outcome: "set" }
  /** Not six digits. */
  | { outcome: "malformed" }
  /** The two entries differ. */
  | { outcome: "mismatch" }
  /** One is set already (another tab, another replica): check it instead. */
  | { outcome: "already_set" }
  /** A lock (kept by a reset) has not passed yet. */
  | { outcome: "locked"; untilMs: number }
  /** The first PIN after a reset needs init data signed since the reset: reopen the app. */
  | { outcome: "stale" };

export type PinCheckResult =
  | { outcome: "right"; proof: PinProof }
  | { outcome: "wrong"; left: number }
  | { outcome: "locked"; untilMs: number }
  /** No PIN set: set one first. */
  | { outcome: "none" }
  /** Not six digits: not counted as a try. */
  | { outcome: "malformed" };

export type PinResetResult =
  | { outcome: "reset" }
  | { outcome: "none" }
  | { outcome: "forbidden" }
  /** An admin's own PIN: another admin resets it, or the console (`pin-reset`). */
  | { outcome: "own" };

export interface PinsOptions {
  stores: Pick<Stores, "pins" | "audit">;
  hasher: PinHasher;
  now: () => number;
  /** Wrong tries in a row before the lock; default PIN_MAX_FAILURES (5). */
  maxFailures?: number;
  /** Wrong tries within `windowMs` before the lock; default PIN_WINDOW_MAX_FAILURES (10). */
  windowMaxFailures?: number;
  /** Default PIN_WINDOW_MS (24 hours). */
  windowMs?: number;
  /** Called once a notice is in the outbox (wakes the notifier). */
  onNoticeQueued?: () => void;
  /** How long a lock lasts; default PIN_LOCK_MS (15 min). */
  lockMs?: number;
}

export class Pins {
  readonly #options: PinsOptions;

  constructor(options: PinsOptions) {
    this.#options = options;
  }

  status(userId: number): Promise<PinStatus> {
    return this.#options.stores.pins.status(userId, this.#options.now());
  }

  /**
   * Sets the PIN of `member` on first use: six digits, typed twice alike. `signedAtMs`: when
   * Telegram signed the init data it came with; the first PIN after a reset takes init data
   * signed since the reset (a copy captured before cannot choose it).
   */
  async set(
    member: StaffMember,
    pin: string,
    repeat: string,
    signedAtMs: number,
  ): Promise<PinSetResult> {
    if (!isPin(pin)) return { outcome: "malformed" };
    if (pin !== repeat) return { outcome: "mismatch" };
    const { stores, hasher, now } = this.#options;
    const hashed = await hasher.hash(pin);
    const nowMs = now();
    const stored = await stores.pins.setIfNone(member.userId, hashed, { nowMs, signedAtMs });
    if (stored.outcome !== "set") return stored;
    if (stored.afterReset) this.#options.onNoticeQueued?.();
    await this.#audit(staffActor(member), "pin_set", member.userId, nowMs);
    return { outcome: "set" };
  }

  /**
   * Checks `pin` for `member`. The try is counted before the hash is compared, so guesses
   * sent at once are all counted: at most five are ever compared before the lock.
   */
  async check(member: StaffMember, pin: string): Promise<PinCheckResult> {
    if (!isPin(pin)) return { outcome: "malformed" };
    const { stores, hasher } = this.#options;
    const began = await stores.pins.beginTry(member.userId, this.#limits());
    if (began.outcome === "none") return began;
    if (began.outcome === "locked") {
      // More guesses at once than the limit: this one locked it (its alert is queued).
      if (began.justLocked) {
        await this.#audit(staffActor(member), "pin_locked", member.userId, this.#options.now(), {
          untilMs: began.untilMs,
        });
      }
      return { outcome: "locked", untilMs: began.untilMs };
    }
    const right = await hasher.verify(began.hash, pin);
    const limits = this.#limits();
    const finished = await stores.pins.finishTry(member.userId, right, began, limits);
    const actor = staffActor(member);
    switch (finished.outcome) {
      case "right": {
        if (finished.toldOfWrong > 0) this.#options.onNoticeQueued?.();
        const proof: PinProof = Object.freeze({ userId: member.userId, atMs: limits.nowMs });
        PROOFS.add(proof);
        return { outcome: "right", proof };
      }
      case "wrong":
        await this.#audit(actor, "pin_failed", member.userId, limits.nowMs, {
          left: finished.left,
        });
        return finished;
      case "locked":
        await this.#audit(actor, "pin_failed", member.userId, limits.nowMs, { left: 0 });
        if (finished.justLocked) {
          await this.#audit(actor, "pin_locked", member.userId, limits.nowMs, {
            untilMs: finished.untilMs,
          });
        }
        return { outcome: "locked", untilMs: finished.untilMs };
    }
  }

  /**
   * `/pin reset <user id>`: an admin forgets someone else's PIN; they set a new one on next
   * use. Never the admin's own: whoever holds an admin's Telegram session (and locked the
   * PIN guessing it) would otherwise choose a new one. The person and every admin are told.
   */
  async reset(admin: StaffMember, userId: number): Promise<PinResetResult> {
    if (!may(admin, "manage_staff")) return { outcome: "forbidden" };
    if (admin.userId === userId) return { outcome: "own" };
    return this.#reset(staffActor(admin), userId);
  }

  /**
   * `pin-reset <user id>` on the server's console: anyone's PIN, an admin's own included
   * (the only way for a sole admin). Shell access to the server is the second factor; the
   * person and every admin are told, as for a reset in the chat.
   */
  resetFromConsole(userId: number): Promise<PinResetResult> {
    return this.#reset(SYSTEM_ACTOR, userId);
  }

  async #reset(actor: Actor, userId: number): Promise<PinResetResult> {
    const nowMs = this.#options.now();
    if (!(await this.#options.stores.pins.reset(userId, { byUserId: actor.id, nowMs }))) {
      return { outcome: "none" };
    }
    this.#options.onNoticeQueued?.();
    await this.#audit(actor, "pin_reset", userId, nowMs);
    return { outcome: "reset" };
  }

  #limits(): PinLimits {
    return {
      nowMs: this.#options.now(),
      maxFailures: this.#options.maxFailures ?? PIN_MAX_FAILURES,
      windowMaxFailures: this.#options.windowMaxFailures ?? PIN_WINDOW_MAX_FAILURES,
      windowMs: this.#options.windowMs ?? PIN_WINDOW_MS,
      lockMs: this.#options.lockMs ?? PIN_LOCK_MS,
    };
  }

  #audit(
    actor: Actor,
    action: "pin_set" | "pin_reset" | "pin_failed" | "pin_locked",
    userId: number,
    atMs: number,
    details: Record<string, number> = {},
  ): Promise<void> {
    return this.#options.stores.audit.record({
      atMs,
      actorId: actor.id,
      actorRole: actor.role,
      action,
      details: { userId, ...details },
    });
  }
}
