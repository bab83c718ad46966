/**
 * Amounts in whole XAF (FCFA): the currency has a minor unit on paper (centimes) that is not
 * used, and the Payment API takes whole numbers. `parseAmount` reads what people type in a
 * chat ("5000", "5 000", "5,000", "5k", "1.5k", "2M", "5 000 FCFA") and refuses anything it
 * would have to guess at; `formatAmount` writes an amount the way each language writes it.
 */

/**
 * ASSUMPTION: the largest amount one payout may carry, 5,000,000 XAF. It matches the usual
 * per-transaction ceiling of MTN MoMo and Orange Money accounts in Cameroon; the Payment API
 * spec does not state a limit. A larger figure is almost surely a typo (an extra zero), so
 * it is refused before anyone is asked to confirm it.
 */
export const MAX_AMOUNT_XAF = 5_000_000;

/** Longer input is refused unread: no amount needs more, and it keeps parsing cheap. */
export const MAX_AMOUNT_INPUT_LENGTH = 40;

export const AMOUNT_PROBLEMS = [
  "empty",
  "not_a_number",
  "zero",
  "negative",
  "decimal",
  "too_large",
] as const;
export type AmountProblem = (typeof AMOUNT_PROBLEMS)[number];

export type AmountParseResult =
  | { ok: true; amount: number }
  | { ok: false; problem: AmountProblem };

/** What the digits say before the sign and the limits are checked. */
type Magnitude = { kind: "whole"; value: number } | { kind: "decimal" } | { kind: "invalid" };

const INVALID: Magnitude = { kind: "invalid" };

// `\d` without the `u` flag is ASCII 0-9 only: other scripts' digits never match.
const PLAIN = /^\d+$/;
// Grouping in threes with one separator kind: spaces (incl. U+00A0, U+202F), commas or dots.
// The first group never starts with 0, so `0.500` is read as a decimal, not as 500.
const GROUPED = [
  /^[1-9]\d{0,2}(?:[ \u00A0\u202F]\d{3})+$/,
  /^[1-9]\d{0,2}(?:,\d{3})+$/,
  /^[1-9]\d{0,2}(?:\.\d{3})+$/,
];
const CURRENCY_SUFFIX = /[ \u00A0\u202F]?(?:fcfa|xaf|f)$/i;
const MULTIPLIER_SUFFIX = /^(\d+)(?:[.,](\d+))?[ \u00A0\u202F]?([kKmM])$/;
const MINUS = /^[-\u2212]/;

/** The integer part of a number written with or without thousands separators. */
function integerValue(text: string): number | undefined {
  if (PLAIN.test(text) || GROUPED.some((pattern) => pattern.test(text))) {
    return Number(text.replace(/\D/g, ""));
  }
  return undefined;
}

/** `5000`, `5 000`, `5,000`, `5.000`, `5000.00`, `5.000,00`; `12.5` and `5,5` are decimals. */
function readNumber(text: string): Magnitude {
  const whole = integerValue(text);
  if (whole !== undefined) return { kind: "whole", value: whole };
  // The decimal mark is the last `.` or `,`; the integer part may be grouped with any other
  // separator (`1,000.50`, `1.000,50`, `1 000,50`) but never with the decimal mark itself.
  const match = /^(.*\d)([.,])(\d+)$/.exec(text);
  if (!match) return INVALID;
  const [, integerText = "", mark = "", fraction = ""] = match;
  if (integerText.includes(mark)) return INVALID;
  const integer = integerValue(integerText);
  if (integer === undefined) return INVALID;
  if (!/^0+$/.test(fraction)) return { kind: "decimal" };
  // `5000.00` is a whole amount written the way prices are; `10,0000` is more likely a
  // mistyped 100,000 than ten francs, so three or more zeros are not read as a fraction.
  return fraction.length <= 2 ? { kind: "whole", value: integer } : INVALID;
}

/**
 * `5k`, `1.5k`, `1,5k` (French decimal comma), `2M`. Before a suffix the `.` or `,` is
 * always a decimal mark, never grouping: `1,500k` is 1,500 XAF, not 1.5 million. The reading
 * that gives the smaller amount is the safer guess, and the confirmation shows the amount.
 */
function readWithMultiplier(text: string): Magnitude | undefined {
  const match = MULTIPLIER_SUFFIX.exec(text);
  if (!match) return undefined;
  const [, integerText = "", fractionText = "", suffix = ""] = match;
  const exponent = suffix.toLowerCase() === "k" ? 3 : 6;
  const fraction = fractionText.replace(/0+$/, "");
  if (fraction.length > exponent) return { kind: "decimal" };
  const value =
    Number(integerText) * 10 ** exponent + Number(fraction.padEnd(exponent, "0") || "0");
  return { kind: "whole", value };
}

function readMagnitude(text: string): Magnitude {
  return readWithMultiplier(text) ?? readNumber(text);
}

/**
 * Parses an amount typed by a person into whole XAF.
 *
 * Accepted: digits with or without thousands separators in groups of three (space, U+00A0,
 * U+202F, `,` or `.`), a `k` (thousand) or `m` (million) suffix in either case, a decimal
 * part of one or two zeros (`5000.00`), and a trailing `XAF`, `FCFA` or `F` in any case.
 * Refused, with the reason: empty input, a minus sign (`negative`), zero, a fraction of a
 * franc (`decimal`), more than `MAX_AMOUNT_XAF` (`too_large`), and everything else
 * (`not_a_number`): non-ASCII digits, exponents, hex, `Infinity`, other letters, and input
 * longer than `MAX_AMOUNT_INPUT_LENGTH` characters.
 */
export function parseAmount(input: string): AmountParseResult {
  if (input.length > MAX_AMOUNT_INPUT_LENGTH) return { ok: false, problem: "not_a_number" };
  let text = input.trim();
  if (text === "") return { ok: false, problem: "empty" };
  text = text.replace(CURRENCY_SUFFIX, "").trim();
  const negative = MINUS.test(text);
  if (negative) text = text.slice(1).trim();

  const magnitude = readMagnitude(text);
  if (magnitude.kind === "invalid") return { ok: false, problem: "not_a_number" };
  if (magnitude.kind === "whole" && magnitude.value === 0) return { ok: false, problem: "zero" };
  if (negative) return { ok: false, problem: "negative" };
  if (magnitude.kind === "decimal") return { ok: false, problem: "decimal" };
  if (magnitude.value > MAX_AMOUNT_XAF) return { ok: false, problem: "too_large" };
  return { ok: true, amount: magnitude.value };
}

export type AmountLocale = "en" | "fr";

/** U+202F NARROW NO-BREAK SPACE: what CLDR (and so Intl) uses to group digits in French. */
const NARROW_NO_BREAK_SPACE = "\u202F";

/**
 * Intl locale and group separator per language. The regional variants Cameroon uses
 * (`en-CM`, `fr-CM`) format whole numbers exactly like `en-US` and `fr-FR` in Node 20's
 * ICU; we name the latter because every ICU build carries them. The group separator is set
 * explicitly because older CLDR data used U+00A0 for French: the output must not change
 * with the ICU version Node was built with.
 */
const FORMATS: Record<AmountLocale, { formatter: Intl.NumberFormat; group: string }> = {
  en: { formatter: new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }), group: "," },
  fr: {
    formatter: new Intl.NumberFormat("fr-FR", { maximumFractionDigits: 0 }),
    group: NARROW_NO_BREAK_SPACE,
  },
};

/**
 * The space before the currency: French typography keeps a figure and its unit on one line
 * (U+00A0 NO-BREAK SPACE), so Telegram never shows "5 000" at the end of a line and "FCFA"
 * at the start of the next. English keeps the ordinary space it has always had.
 */
const CURRENCY_SPACE: Record<AmountLocale, string> = { en: " ", fr: "\u00A0" };

/**
 * Formats whole XAF for a message: `5,000 FCFA` (en), `5 000 FCFA` (fr, digits grouped with
 * U+202F and U+00A0 before `FCFA`, so the amount never breaks across lines). Throws a
 * `RangeError` for a value that is not a safe integer: amounts are whole XAF everywhere, so
 * that is a bug upstream.
 */
export function formatAmount(amount: number, locale: AmountLocale): string {
  if (!Number.isSafeInteger(amount)) {
    throw new RangeError(`amount must be a whole number of XAF (got ${amount})`);
  }
  return `${formatCount(amount, locale)}${CURRENCY_SPACE[locale]}FCFA`;
}

/** A whole number grouped as amounts are (`100,000`, `100 000`): counts of rows, payouts. */
export function formatCount(count: number, locale: AmountLocale): string {
  const { formatter, group } = FORMATS[locale];
  // What Intl gives a whole number at or above 0 in both languages, without its parts.
  if (Number.isSafeInteger(count) && count >= 0) return groupDigits(String(count), group);
  return formatter
    .formatToParts(count)
    .map((part) => (part.type === "group" ? group : part.value))
    .join("");
}

/** `digits` grouped by three from the right with `group` between groups: 1234567 → 1,234,567. */
function groupDigits(digits: string, group: string): string {
  const head = digits.length % 3 || 3;
  let text = digits.slice(0, head);
  for (let at = head; at < digits.length; at += 3) text += group + digits.slice(at, at + 3);
  return text;
}
