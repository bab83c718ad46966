import { describe, expect, it } from "vitest";
import {
  formatPhone,
  type OperatorHint,
  operatorOf,
  type PhoneProblem,
  parsePhone,
} from "../../../src/model/phone.js";

describe("parsePhone", () => {
  const sameNumber: readonly string[] = [
    "237670000001",
    "+237670000001",
    "+237 670 00 00 01",
    "00237670000001",
    "00 237 670 00 00 01",
    "670000001",
    "6 70 00 00 01",
    "670 00 00 01",
    "670-000-001",
    "670.00.00.01",
    "(237) 670 000 001",
    "  670000001  ",
    "670\u00A0000\u00A0001",
  ];

  it.each(sameNumber)("reads %j as 237670000001 on MTN", (input) => {
    expect(parsePhone(input)).toEqual({ ok: true, phone: "237670000001", operator: "mtn" });
  });

  const served: ReadonlyArray<readonly [prefix: string, operator: "mtn" | "orange"]> = [
    ["650", "mtn"],
    ["654", "mtn"],
    ["670", "mtn"],
    ["679", "mtn"],
    ["680", "mtn"],
    ["683", "mtn"],
    ["655", "orange"],
    ["659", "orange"],
    ["686", "orange"],
    ["689", "orange"],
    ["690", "orange"],
    ["699", "orange"],
    ["640", "orange"],
    ["642", "orange"],
  ];

  it.each(served)("takes prefix %s as %s", (prefix, operator) => {
    const national = `${prefix}123456`;
    expect(parsePhone(national)).toEqual({ ok: true, phone: `237${national}`, operator });
    expect(parsePhone(`+237${national}`)).toEqual({ ok: true, phone: `237${national}`, operator });
  });

  const unsupported: ReadonlyArray<readonly [prefix: string, operator: "nexttel" | "camtel"]> = [
    ["660", "nexttel"],
    ["669", "nexttel"],
    ["684", "nexttel"],
    ["685", "nexttel"],
    ["620", "camtel"],
    ["629", "camtel"],
    ["242", "camtel"],
    ["243", "camtel"],
  ];

  it.each(unsupported)("refuses prefix %s as %s, which the API does not serve", (prefix, hint) => {
    expect(parsePhone(`${prefix}123456`)).toEqual({
      ok: false,
      problem: "unsupported_operator",
      operator: hint,
    });
  });

  it.each(["643", "649", "600", "610", "630", "700", "222", "241", "244", "123"])(
    "refuses prefix %s as not a mobile number",
    (prefix) => {
      expect(parsePhone(`${prefix}123456`)).toEqual({ ok: false, problem: "not_mobile" });
    },
  );

  const refused: ReadonlyArray<readonly [what: string, input: string, problem: PhoneProblem]> = [
    ["an empty string", "", "empty"],
    ["only spaces", "   ", "empty"],
    ["a French number with +", "+33612345678", "wrong_country"],
    ["a French number with 00", "0033612345678", "wrong_country"],
    ["a Nigerian number", "+2348031234567", "wrong_country"],
    ["a national number with +", "+670000001", "wrong_country"],
    ["a foreign number without a prefix", "33612345678", "wrong_country"],
    ["eight national digits", "67000000", "wrong_length"],
    ["ten digits after 237", "2376700000012", "wrong_length"],
    ["eight digits after 237", "23767000000", "wrong_length"],
    ["eight digits after +237", "+23767000000", "wrong_length"],
    ["only a country code", "+237", "wrong_length"],
    ["one digit", "6", "wrong_length"],
    ["letters", "six-seven-zero", "not_digits"],
    ["a letter among digits", "67000000l", "not_digits"],
    ["HTML", "<b>670000001</b>", "not_digits"],
    ["a script tag", "<script>670000001</script>", "not_digits"],
    ["Arabic-Indic digits", "٦٧٠٠٠٠٠٠١", "not_digits"],
    ["fullwidth digits", "６７０００００００１", "not_digits"],
    ["an emoji", "670000001📱", "not_digits"],
    ["a plus alone", "+", "not_digits"],
    ["a plus in the middle", "237+670000001", "not_digits"],
    ["an underscore", "670_000_001", "not_digits"],
    ["a slash", "670/000/001", "not_digits"],
  ];

  it.each(refused)("refuses %s (%j) as %s", (_what, input, problem) => {
    expect(parsePhone(input)).toEqual({ ok: false, problem });
  });

  it("refuses a 10,000-character string", () => {
    expect(parsePhone("6".repeat(10_000))).toEqual({ ok: false, problem: "wrong_country" });
    expect(parsePhone("a".repeat(10_000))).toEqual({ ok: false, problem: "not_digits" });
  });
});

describe("operatorOf", () => {
  const cases: ReadonlyArray<readonly [national: string, hint: OperatorHint | undefined]> = [
    ["650000000", "mtn"],
    ["683999999", "mtn"],
    ["684000000", "nexttel"],
    ["686000000", "orange"],
    ["642000000", "orange"],
    ["643000000", undefined],
    ["620000000", "camtel"],
    ["242000000", "camtel"],
    ["", undefined],
  ];

  it.each(cases)("gives %j the hint %s", (national, hint) => {
    expect(operatorOf(national)).toBe(hint);
  });
});

describe("formatPhone", () => {
  const cases: ReadonlyArray<readonly [input: string, output: string]> = [
    ["237670000001", "+237 670 00 00 01"],
    ["237699123456", "+237 699 12 34 56"],
    ["670000001", "+237 670 00 00 01"],
    // Anything that is not 237 + 9 digits is shown as it came rather than mangled.
    ["2376700000", "2376700000"],
    ["33612345678", "33612345678"],
    ["abc", "abc"],
    ["", ""],
  ];

  it.each(cases)("writes %j as %j", (input, output) => {
    expect(formatPhone(input)).toBe(output);
  });

  it("writes what parsePhone returns the way Cameroonians write numbers", () => {
    const parsed = parsePhone("00237 655 12 34 56");
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(formatPhone(parsed.phone)).toBe("+237 655 12 34 56");
  });
});
