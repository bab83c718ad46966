/**
 * The `<recipient>` of /schedule: a number today. It goes through this one function so that
 * saved recipients (aliases) can take its place in one step: `resolveRecipientArg` of
 * payouts/recipients.ts answers the same shape.
 */
import { parsePhone } from "../model/phone.js";

export type RecipientArg =
  | { outcome: "number"; phone: string }
  | { outcome: "alias"; phone: string; alias: string; savedName: string; savedAt: number }
  | { outcome: "unknown_alias"; alias: string }
  | { outcome: "invalid" };

/** The recipient a /schedule names: a valid number, or invalid (the caller says why). */
export async function parseRecipientArg(text: string): Promise<RecipientArg> {
  const phone = parsePhone(text);
  return phone.ok ? { outcome: "number", phone: phone.phone } : { outcome: "invalid" };
}
