/**
 * The step-up PIN's rules: what a PIN is, how many wrong tries lock it and for how long.
 * The PIN itself is never kept, logged or sent in a chat: only its argon2id hash is stored.
 */

/** A PIN is exactly six ASCII digits. */
export const PIN_PATTERN = /^[0-9]{6}$/;
/** Wrong tries in a row that lock a person's PIN. */
export const PIN_MAX_FAILURES = 5;
/** How long a locked PIN stays locked. */
export const PIN_LOCK_MS = 15 * 60_000;
/**
 * Wrong tries within PIN_WINDOW_MS that lock it too, right ones in between or not: a right
 * PIN clears the count in a row, so without this four guesses between each of the owner's
 * own entries would never lock.
 */
export const PIN_WINDOW_MAX_FAILURES = 10;
/** The sliding window PIN_WINDOW_MAX_FAILURES is counted in. */
export const PIN_WINDOW_MS = 24 * 3_600_000;

/** True for a well-formed PIN (six digits). */
export function isPin(value: string): boolean {
  return PIN_PATTERN.test(value);
}

/** What the store says of one person's PIN now. */
export type PinStatus =
  /** None set (never, or reset by an admin): the next use sets one (a lock kept by a reset first). */
  { kind: "none" } | { kind: "set"; failures: number } | { kind: "locked"; untilMs: number };
