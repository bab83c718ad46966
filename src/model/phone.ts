/**
 * Cameroonian mobile numbers: parse what people type, normalize to 12 digits (`237` and
 * nine digits), and guess the operator from the prefix. Numbers are portable between
 * operators, so the guess is a hint: the Payment API has the last word.
 *
 * Prefixes (after 237): MTN 650–654, 67x, 680–683; Orange 655–659, 69x, 686–689,
 * 640–642; Nexttel 66x, 684–685 and Camtel 62x, 242–243 are not served by the API.
 */
import type { TelecomOperator } from "./payment-terms.js";

export type OperatorHint = TelecomOperator | "nexttel" | "camtel";

export type PhoneProblem =
  | "empty"
  | "not_digits"
  | "wrong_country"
  | "wrong_length"
  | "not_mobile"
  | "unsupported_operator";

export type PhoneParseResult =
  | { ok: true; phone: string; operator: TelecomOperator }
  | { ok: false; problem: PhoneProblem; operator?: OperatorHint };

const PREFIX_RANGES: ReadonlyArray<readonly [from: number, to: number, operator: OperatorHint]> = [
  [650, 654, "mtn"],
  [670, 679, "mtn"],
  [680, 683, "mtn"],
  [655, 659, "orange"],
  [690, 699, "orange"],
  [686, 689, "orange"],
  [640, 642, "orange"],
  [660, 669, "nexttel"],
  [684, 685, "nexttel"],
  [620, 629, "camtel"],
  [242, 243, "camtel"],
];

/** The operator a 9-digit national number belongs to by its prefix, if any. */
export function operatorOf(nationalNumber: string): OperatorHint | undefined {
  const prefix = Number(nationalNumber.slice(0, 3));
  return PREFIX_RANGES.find(([from, to]) => prefix >= from && prefix <= to)?.[2];
}

/**
 * Accepts `237670000001`, `+237 670 00 00 01`, `00237670000001`, `670000001`, with spaces,
 * dots, dashes or parentheses between digits. Only ASCII digits count: a number typed
 * with other scripts' digits is refused rather than guessed at.
 */
export function parsePhone(input: string): PhoneParseResult {
  const trimmed = input.trim();
  if (trimmed === "") return { ok: false, problem: "empty" };
  // `(+237) 670 00 00 01` is a common way of writing a number: a bracket may open it.
  if (!/^\(?\+?[\d\s().-]+$/.test(trimmed)) return { ok: false, problem: "not_digits" };
  let digits = trimmed.replace(/\D/g, "");
  if (/^\(?\+/.test(trimmed) || digits.startsWith("00")) {
    digits = digits.replace(/^00/, "");
    if (!digits.startsWith("237")) return { ok: false, problem: "wrong_country" };
  }
  if (digits.length === 12 && digits.startsWith("237")) digits = digits.slice(3);
  else if (digits.length > 9 && !digits.startsWith("237")) {
    return { ok: false, problem: "wrong_country" };
  }
  if (digits.length !== 9) return { ok: false, problem: "wrong_length" };
  const operator = operatorOf(digits);
  if (operator === undefined) return { ok: false, problem: "not_mobile" };
  if (operator === "nexttel" || operator === "camtel") {
    return { ok: false, problem: "unsupported_operator", operator };
  }
  return { ok: true, phone: `237${digits}`, operator };
}

/** `237670000001` → `+237 670 00 00 01`, the way Cameroonians write numbers. */
export function formatPhone(phone: string): string {
  const national = phone.startsWith("237") ? phone.slice(3) : phone;
  if (!/^\d{9}$/.test(national)) return phone;
  return `+237 ${national.slice(0, 3)} ${national.slice(3, 5)} ${national.slice(5, 7)} ${national.slice(7)}`;
}

/**
 * A number in a list: the same digits as the logs' mask (23767••••001), grouped as people
 * read them: `67• •• •0 01`. The operator's prefix and the last three digits tell
 * 670000001, 650000001 and 690000001 apart; the four digits between stay hidden. The bot's
 * lists (/recipients, /history) and the Mini App's Recipients write it this one way.
 */
export function maskedPhone(phone: string): string {
  const national = phone.slice(-9);
  return `${national.slice(0, 2)}• •• •${national.slice(6, 7)} ${national.slice(7)}`;
}
