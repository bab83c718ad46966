import { describe, expect, it } from "vitest";
import {
  type AmountProblem,
  formatAmount,
  formatCount,
  MAX_AMOUNT_INPUT_LENGTH,
  MAX_AMOUNT_XAF,
  parseAmount,
} from "../../../src/model/money.js";

const NBSP = "\u00A0";
const NNBSP = "\u202F";

describe("parseAmount", () => {
  const accepted: ReadonlyArray<readonly [input: string, amount: number]> = [
    ["5000", 5000],
    ["1", 1],
    ["  5000  ", 5000],
    ["05000", 5000],
    ["5 000", 5000],
    [`5${NBSP}000`, 5000],
    [`5${NNBSP}000`, 5000],
    [`1${NNBSP}000${NNBSP}000`, 1_000_000],
    ["5,000", 5000],
    ["5.000", 5000],
    ["1,000,000", 1_000_000],
    ["1.000.000", 1_000_000],
    ["1 000 000", 1_000_000],
    ["12.500", 12_500],
    ["5k", 5000],
    ["5K", 5000],
    ["5 k", 5000],
    ["1.5k", 1500],
    ["1,5k", 1500],
    ["0.5k", 500],
    ["1.234k", 1234],
    ["1.2340k", 1234],
    ["1,500k", 1500],
    ["2m", 2_000_000],
    ["2M", 2_000_000],
    ["2.5m", 2_500_000],
    ["5000 XAF", 5000],
    ["5000xaf", 5000],
    ["5000 FCFA", 5000],
    ["5 000 fcfa", 5000],
    ["5000 F", 5000],
    ["5000f", 5000],
    ["5k FCFA", 5000],
    [" 5 k F ", 5000],
    ["5000.00", 5000],
    ["5000.0", 5000],
    ["5000,00", 5000],
    ["5,000.00", 5000],
    ["5.000,00", 5000],
    [`5${NNBSP}000,00 FCFA`, 5000],
    [String(MAX_AMOUNT_XAF), MAX_AMOUNT_XAF],
    ["5m", MAX_AMOUNT_XAF],
  ];

  it.each(accepted)("reads %j as %i XAF", (input, amount) => {
    expect(parseAmount(input)).toEqual({ ok: true, amount });
  });

  const refused: ReadonlyArray<readonly [input: string, problem: AmountProblem]> = [
    ["", "empty"],
    ["   ", "empty"],
    [`${NBSP}${NNBSP}`, "empty"],
    ["0", "zero"],
    ["000", "zero"],
    ["0k", "zero"],
    ["0.00", "zero"],
    ["-0", "zero"],
    ["-5000", "negative"],
    ["\u22125000", "negative"],
    ["- 5000", "negative"],
    ["-5k", "negative"],
    ["-12.5", "negative"],
    ["-5 000 FCFA", "negative"],
    ["12.5", "decimal"],
    ["5,5", "decimal"],
    ["5.50", "decimal"],
    ["0.5", "decimal"],
    ["0.500", "decimal"],
    ["1,000.50", "decimal"],
    ["1.000,50", "decimal"],
    ["5000.01", "decimal"],
    ["1.2345k", "decimal"],
    ["1.0000001m", "decimal"],
    [String(MAX_AMOUNT_XAF + 1), "too_large"],
    ["5.000001m", "too_large"],
    ["6m", "too_large"],
    ["10 000 000", "too_large"],
    ["99999999999999999999999999999999", "too_large"],
  ];

  it.each(refused)("refuses %j as %s", (input, problem) => {
    expect(parseAmount(input)).toEqual({ ok: false, problem });
  });

  const hostile: ReadonlyArray<readonly [what: string, input: string]> = [
    ["Arabic-Indic digits", "٥٠٠٠"],
    ["Extended Arabic-Indic digits", "۵۰۰۰"],
    ["fullwidth digits", "５０００"],
    ["Devanagari digits", "५०००"],
    ["scientific notation", "5e3"],
    ["scientific notation in capitals", "5E3"],
    ["hex", "0x10"],
    ["octal", "0o10"],
    ["binary", "0b10"],
    ["Infinity", "Infinity"],
    ["-Infinity", "-Infinity"],
    ["NaN", "NaN"],
    ["a double minus", "--5"],
    ["a plus sign", "+5000"],
    ["HTML", "<b>5000</b>"],
    ["a script tag", "<script>alert(1)</script>"],
    ["an emoji", "5000💰"],
    ["only an emoji", "💰"],
    ["a word", "five thousand"],
    ["letters after the digits", "5000abc"],
    ["a currency before the digits", "FCFA 5000"],
    ["another currency", "5000 EUR"],
    ["a suffix alone", "k"],
    ["a currency alone", "FCFA"],
    ["two suffixes", "5kk"],
    ["a suffix then digits", "5k000"],
    ["a leading decimal mark", ".5k"],
    ["a trailing decimal mark", "5.k"],
    ["grouping not in threes", "50,00,000"],
    ["a first group of four", "5000,000"],
    ["mixed grouping marks", "1,000.000"],
    ["the decimal mark used to group", "1,000,0"],
    ["three zeros after a decimal mark", "10,0000"],
    ["two spaces between groups", "5  000"],
    ["a tab between groups", "5\t000"],
    ["a newline between groups", "5\n000"],
    ["an underscore separator", "5_000"],
    ["two amounts", "5000 6000"],
    ["parentheses", "(5000)"],
    ["a percent sign", "50%"],
    ["a zero-width space", "5\u200B000"],
    ["a NUL byte", "5000\u0000"],
    ["a 10,000-character string of digits", "5".repeat(10_000)],
    ["a 10,000-character string of spaces", " ".repeat(10_000)],
    ["input one character over the cap", `${" ".repeat(MAX_AMOUNT_INPUT_LENGTH - 3)}5000`],
  ];

  it.each(hostile)("refuses %s as not a number", (_what, input) => {
    expect(parseAmount(input)).toEqual({ ok: false, problem: "not_a_number" });
  });

  it("reads input exactly as long as the cap", () => {
    const input = `${" ".repeat(MAX_AMOUNT_INPUT_LENGTH - 4)}5000`;
    expect(input).toHaveLength(MAX_AMOUNT_INPUT_LENGTH);
    expect(parseAmount(input)).toEqual({ ok: true, amount: 5000 });
  });

  it("reads back what formatAmount writes, in both languages", () => {
    for (const amount of [1, 999, 1000, 5000, 123_456, MAX_AMOUNT_XAF]) {
      expect(parseAmount(formatAmount(amount, "en"))).toEqual({ ok: true, amount });
      expect(parseAmount(formatAmount(amount, "fr"))).toEqual({ ok: true, amount });
    }
  });
});

describe("formatAmount", () => {
  const cases: ReadonlyArray<readonly [amount: number, en: string, fr: string]> = [
    [1, "1 FCFA", `1${NBSP}FCFA`],
    [999, "999 FCFA", `999${NBSP}FCFA`],
    [1000, "1,000 FCFA", `1${NNBSP}000${NBSP}FCFA`],
    [5000, "5,000 FCFA", `5${NNBSP}000${NBSP}FCFA`],
    [12_500, "12,500 FCFA", `12${NNBSP}500${NBSP}FCFA`],
    [1_234_567, "1,234,567 FCFA", `1${NNBSP}234${NNBSP}567${NBSP}FCFA`],
    [0, "0 FCFA", `0${NBSP}FCFA`],
    [-5000, "-5,000 FCFA", `-5${NNBSP}000${NBSP}FCFA`],
  ];

  it.each(cases)("writes %i as %j in English and %j in French", (amount, en, fr) => {
    expect(formatAmount(amount, "en")).toBe(en);
    expect(formatAmount(amount, "fr")).toBe(fr);
  });

  it("writes every whole number as Intl's own parts do, in both languages", () => {
    const numbers = [0, 7, 99, 100, 999, 1000, 9999, 10_000, 99_999, 100_000, 999_999];
    for (let n = 1; n <= Number.MAX_SAFE_INTEGER / 7; n *= 7) numbers.push(n, n + 1, n * 10);
    numbers.push(MAX_AMOUNT_XAF, Number.MAX_SAFE_INTEGER, -1, -5000, -1_234_567);
    for (const [locale, tag] of [
      ["en", "en-US"],
      ["fr", "fr-FR"],
    ] as const) {
      const intl = new Intl.NumberFormat(tag, { maximumFractionDigits: 0 });
      for (const n of numbers) {
        const parts = intl
          .formatToParts(n)
          .map((part) => (part.type === "group" ? (locale === "en" ? "," : NNBSP) : part.value));
        expect(formatCount(n, locale), `${n} ${locale}`).toBe(parts.join(""));
      }
    }
  });

  it("groups French digits with a narrow no-break space (U+202F), as Intl does for fr-FR", () => {
    const intl = new Intl.NumberFormat("fr-FR").format(5000);
    expect(formatAmount(5000, "fr")).toBe(`${intl}${NBSP}FCFA`);
    expect(formatAmount(5000, "fr").charCodeAt(1)).toBe(0x202f);
  });

  it("keeps a French amount and FCFA on one line: a no-break space (U+00A0) before FCFA", () => {
    expect(formatAmount(5000, "fr")).toMatch(/\d\u00A0FCFA$/);
    expect(formatAmount(5000, "fr")).not.toMatch(/\s(?<![\u00A0\u202F])/);
  });

  it("matches what Intl gives for the Cameroonian locales en-CM and fr-CM", () => {
    expect(formatAmount(1_234_567, "en")).toBe(
      `${new Intl.NumberFormat("en-CM").format(1_234_567)} FCFA`,
    );
    expect(formatAmount(1_234_567, "fr")).toBe(
      `${new Intl.NumberFormat("fr-CM").format(1_234_567)}${NBSP}FCFA`,
    );
  });

  it.each([12.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])(
    "refuses %d, which is not a whole number of XAF",
    (amount) => {
      expect(() => formatAmount(amount, "en")).toThrow(RangeError);
    },
  );
});
