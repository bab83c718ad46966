/**
 * Splits the text after `/pay` or `/collect` into number, amount and note. People type
 * numbers and amounts with spaces (`+237 670 00 00 01 5 000 rent`), so the number is the
 * shortest run of leading words that reads as a phone number, and the amount the longest
 * run of up to three following words that reads as an amount; the rest is the note.
 */
import { parseAmount } from "../payments/money.js";
import { parsePhone } from "../payments/phone.js";

export interface PaymentArgs {
  /** The words taken as the number (may be invalid: the caller validates). */
  phone?: string;
  amount?: string;
  note?: string;
}

const PHONE_WORD = /^[+\d().-]+$/;
const MAX_PHONE_WORDS = 6;
const MAX_AMOUNT_WORDS = 3;

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

  let amountWords = 1;
  for (let count = Math.min(MAX_AMOUNT_WORDS, rest.length); count >= 1; count--) {
    if (parseAmount(rest.slice(0, count).join(" ")).ok) {
      amountWords = count;
      break;
    }
  }
  const amount = rest.slice(0, amountWords).join(" ");
  const note = rest.slice(amountWords).join(" ");
  return note === "" ? { phone, amount } : { phone, amount, note };
}

/** The text after the command word (`/pay@MyBot 670… 5000` → `670… 5000`). */
export function commandPayload(text: string): string {
  const match = /^\/\S+\s*([\s\S]*)$/.exec(text.trim());
  return match?.[1] ?? "";
}
