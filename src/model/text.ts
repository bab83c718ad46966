/**
 * Text that came from a user or the API, made fit to show: notes typed by staff and names
 * registered with the operators end up in every message about a payout.
 */

export const MAX_NOTE_LENGTH = 140;
/** A registered name longer than this is cut: it is shown in every message about the payout. */
export const MAX_NAME_LENGTH = 100;
/** What the API says about a failure is cut here: it is one line of a message. */
const MAX_REMARK_LENGTH = 200;

/**
 * One line of text from a user or the API, made safe to show: control characters (newlines
 * included) and other invisible format characters become spaces, runs of space fold, and
 * the result is trimmed and cut to `maxLength`. Undefined when nothing is left.
 */
export function cleanLine(text: string | undefined, maxLength: number): string | undefined {
  if (text === undefined) return undefined;
  const cleaned = text
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (cleaned === "") return undefined;
  return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength - 1)}…` : cleaned;
}

/** Strips control characters and trims a free-text note to a sane length. */
export function cleanNote(note: string | undefined): string | undefined {
  return cleanLine(note, MAX_NOTE_LENGTH);
}

/** What the API said about a payment, as shown to the payer: one clean line, 200 at most. */
export function cleanRemark(remark: string | undefined): string | undefined {
  return cleanLine(remark, MAX_REMARK_LENGTH);
}

/** A registered name as shown in messages: one clean line of at most 100 characters. */
export function cleanName(info: { firstName: string; lastName: string }): string {
  return cleanLine(`${info.firstName} ${info.lastName}`, MAX_NAME_LENGTH) ?? "";
}
