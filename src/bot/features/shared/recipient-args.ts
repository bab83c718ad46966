/**
 * A recipient argument of /pay and /collect (a number or a saved alias) as the features
 * use it: the number to pay and the alias it came from, or the words for what was wrong.
 */
import type { Translate } from "../../../i18n.js";
import { MAX_AMOUNT_XAF } from "../../../model/money.js";
import type { Payout } from "../../../model/payout.js";
import type { RecipientArg } from "../../../payouts/recipients.js";
import { type PromptExtras, prepareFailureText } from "../../views/pay.js";
import { aliasProblemText, aliasPromptNotes } from "../../views/recipients.js";

/** What a payout prompt keeps of the alias its number came from. */
export interface SavedRecipient {
  alias: string;
  savedName: string;
  savedAtMs: number;
}

/** The number (and the alias it came from), or null when `arg` names no number. */
export function recipientFound(
  arg: RecipientArg,
): { phone: string; saved?: SavedRecipient } | null {
  if (arg.outcome === "number") return { phone: arg.phone };
  if (arg.outcome !== "alias") return null;
  return {
    phone: arg.phone,
    saved: { alias: arg.alias, savedName: arg.savedName, savedAtMs: arg.savedAt },
  };
}

/** Why `arg` names no number, for /pay or /collect (`command`). */
export function recipientProblemText(
  t: Translate,
  arg: RecipientArg,
  command: "pay" | "collect",
): string {
  switch (arg.outcome) {
    case "invalid":
      if (arg.what === "alias") return aliasProblemText(t, arg.problem);
      return prepareFailureText(
        t,
        { reason: "bad_phone", problem: arg.problem, operator: arg.operator },
        command,
        MAX_AMOUNT_XAF,
      );
    case "unknown_alias":
      return t("recipients.unknown_alias", { alias: arg.alias });
    case "number":
    case "alias":
      // Found, but not the number the dialog was given: the alias changed meanwhile.
      return t("recipients.changed", { alias: arg.outcome === "alias" ? arg.alias : "" });
  }
}

/** A prompt's extras with what it says of a saved name that changed, first among the notes. */
export function withAliasNotes(t: Translate, payout: Payout, extras: PromptExtras): PromptExtras {
  const notes = aliasPromptNotes(t, payout);
  if (notes.length === 0) return extras;
  return { ...extras, notes: [...notes, ...(extras.notes ?? [])] };
}
