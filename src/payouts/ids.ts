/**
 * The ids we make up for payouts and batches. They appear in exports, where a cell that
 * begins with `-`, `=`, `+` or `@` is escaped against formula injection (a `'` in front):
 * an id that began with one would no longer match the bot's own. So none does: an id is
 * random base64url (letters, digits, `-`, `_`) whose first character is a letter or a digit.
 */
import { randomBytes } from "node:crypto";

const SAFE_START = /^[A-Za-z0-9]/;

/**
 * `bytes` random bytes as base64url, drawn again while the first character is `-` or `_`
 * (1 draw in 32), so every id that can be drawn is as likely as any other.
 */
export function randomId(bytes: number): string {
  for (;;) {
    const id = randomBytes(bytes).toString("base64url");
    if (SAFE_START.test(id)) return id;
  }
}

/** A payout's id: 16 characters (96 random bits, less the first character's 2 values). */
export function newPayoutId(): string {
  return randomId(12);
}

/** A batch's id: 8 characters, short enough to type in `/batch ID`. */
export function newBatchId(): string {
  return randomId(6);
}
