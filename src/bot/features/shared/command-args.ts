/**
 * Splits the text after `/pay` or `/collect` into number, amount and note. People type
 * numbers and amounts with spaces (`+237 670 00 00 01 5 000 rent`), so the number is the
 * shortest run of leading words that reads as a phone number. The amount is every word of
 * a digit-grouped number (`6 000 000`, `1 000.50`), valid or not, so that an amount that is
 * too large or has decimals is refused as a whole rather than cut into an amount and a
 * note; otherwise the longest run of up to three words that reads as an amount. The rest
 * is the note.
 */
import { parseAmount } from "../../../model/money.js";
import { parsePhone } from "../../../model/phone.js";

export interface PaymentArgs {
  /** The words taken as the number (may be invalid: the caller validates). */
  phone?: string;
  amount?: string;
  note?: string;
}

const PHONE_WORD = /^[+\d().-]+$/;
const MAX_PHONE_WORDS = 6;
const MAX_AMOUNT_WORDS = 3;
/** The first group of a number written in groups of three: `6` of `6 000 000`. */
const LEADING_GROUP = /^\d{1,3}$/;
/** A following group, the last one possibly with decimals: `000`, `000.50`, `000,5`. */
const NEXT_GROUP = /^\d{3}(?:[.,]\d*)?$/;
const CURRENCY_WORD = /^(?:fcfa|xaf|f)$/i;

/** How many leading words form one digit-grouped number (and its currency), or 0. */
function groupedNumberWords(words: readonly string[]): number {
  if (!LEADING_GROUP.test(words[0] ?? "")) return 0;
  let count = 1;
  while (count < words.length && NEXT_GROUP.test(words[count] ?? "")) {
    count += 1;
    if (/[.,]/.test(words[count - 1] ?? "")) break;
  }
  if (count === 1) return 0;
  if (CURRENCY_WORD.test(words[count] ?? "")) count += 1;
  return count;
}

export function splitPaymentArgs(text: string): PaymentArgs {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length === 0) return {};
  let phoneWords = 0;
  for (let count = 1; count <= Math.min(MAX_PHONE_WORDS, words.length); count++) {
    const word = words[count - 1];
    if (word === undefined || !PHONE_WORD.test(word)) break;
    if (parsePhone(words.slice(0, count).join(" ")).ok) {
      phoneWords = count;
      break;
    }
  }
  // Nothing reads as a number: the first word is what the user meant as one.
  if (phoneWords === 0) phoneWords = 1;
  const phone = words.slice(0, phoneWords).join(" ");
  const rest = words.slice(phoneWords);
  if (rest.length === 0) return { phone };

  const grouped = groupedNumberWords(rest);
  const amountWords = grouped > 0 ? grouped : longestAmountRun(rest);
  const amount = rest.slice(0, amountWords).join(" ");
  const note = rest.slice(amountWords).join(" ");
  return note === "" ? { phone, amount } : { phone, amount, note };
}

/** The longest run of up to three leading words that reads as a valid amount; at least 1. */
function longestAmountRun(words: readonly string[]): number {
  for (let count = Math.min(MAX_AMOUNT_WORDS, words.length); count > 1; count--) {
    if (parseAmount(words.slice(0, count).join(" ")).ok) return count;
  }
  return 1;
}

/** The text after the command word (`/pay@MyBot 670… 5000` → `670… 5000`). */
export function commandPayload(text: string): string {
  const match = /^\/\S+\s*([\s\S]*)$/.exec(text.trim());
  return match?.[1] ?? "";
}
