import { describe, expect, it } from "vitest";
import {
  commandPayload,
  splitPaymentArgs,
} from "../../../../../src/bot/features/shared/command-args.js";

describe("splitPaymentArgs", () => {
  it.each([
    ["670000001 5000", { phone: "670000001", amount: "5000" }],
    ["237670000001 5000 delivery", { phone: "237670000001", amount: "5000", note: "delivery" }],
    ["670000001 5 000", { phone: "670000001", amount: "5 000" }],
    ["+237 670 00 00 01 5k", { phone: "+237 670 00 00 01", amount: "5k" }],
    ["670 000 001 5000", { phone: "670 000 001", amount: "5000" }],
    ["00237 670000001 2M", { phone: "00237 670000001", amount: "2M" }],
    ["(+237) 670-00-00-01 5 000 000", { phone: "(+237) 670-00-00-01", amount: "5 000 000" }],
    ["670000001 5 000 rent for May", { phone: "670000001", amount: "5 000", note: "rent for May" }],
    ["670000001 5000 12 bags", { phone: "670000001", amount: "5000", note: "12 bags" }],
    ["670000001 5000 FCFA taxi", { phone: "670000001", amount: "5000 FCFA", note: "taxi" }],
    ["670000001 5.000,00 x", { phone: "670000001", amount: "5.000,00", note: "x" }],
    // Groups of three after a short first group read as one amount; the prompt shows it.
    ["670000001 500 250 pens", { phone: "670000001", amount: "500 250", note: "pens" }],
    ["  670000001\t 5000  \n", { phone: "670000001", amount: "5000" }],
    ["670000001\n5000\nfuel", { phone: "670000001", amount: "5000", note: "fuel" }],
  ])("splits %j", (text, expected) => {
    expect(splitPaymentArgs(text)).toEqual(expected);
  });

  it.each([
    ["", {}],
    ["   ", {}],
    ["670000001", { phone: "670000001" }],
    ["670 00 00 01", { phone: "670 00 00 01" }],
  ])("leaves out what is missing in %j (the dialog asks for it)", (text, expected) => {
    expect(splitPaymentArgs(text)).toEqual(expected);
  });

  it.each([
    ["abc 5000", { phone: "abc", amount: "5000" }],
    ["6700 5000", { phone: "6700", amount: "5000" }],
    ["٦٧٠٠٠٠٠٠١ 5000", { phone: "٦٧٠٠٠٠٠٠١", amount: "5000" }],
    ["670000001 -5000 refund", { phone: "670000001", amount: "-5000", note: "refund" }],
    ["670000001 five thousand", { phone: "670000001", amount: "five", note: "thousand" }],
    ["<b>670000001</b> 5000", { phone: "<b>670000001</b>", amount: "5000" }],
  ])("hands invalid parts of %j on as typed, for the caller to explain", (text, expected) => {
    expect(splitPaymentArgs(text)).toEqual(expected);
  });

  it("takes the first word as the number when no run of words reads as one", () => {
    expect(splitPaymentArgs("12 34 56 78 90 12 34 5000")).toEqual({
      phone: "12",
      amount: "34",
      note: "56 78 90 12 34 5000",
    });
  });

  it("keeps a very long note whole (the service shortens it)", () => {
    const note = "x".repeat(4000);
    expect(splitPaymentArgs(`670000001 5000 ${note}`).note).toBe(note);
  });
});

describe("commandPayload", () => {
  it.each([
    ["/pay 670000001 5000", "670000001 5000"],
    ["/pay@payout_bot 670000001 5000", "670000001 5000"],
    ["/pay", ""],
    ["  /pay   x  ", "x"],
    ["/pay\n670000001\n5000", "670000001\n5000"],
    ["/lang fr", "fr"],
  ])("reads %j as %j", (text, payload) => {
    expect(commandPayload(text)).toBe(payload);
  });

  it("gives nothing for text that is not a command", () => {
    expect(commandPayload("hello")).toBe("");
  });
});

describe("splitPaymentArgs with an amount that is not valid", () => {
  it.each([
    ["670000001 6 000 000", "6 000 000", undefined],
    ["670000001 6 000 000 rent", "6 000 000", "rent"],
    ["670000001 1 000.50", "1 000.50", undefined],
    ["670000001 1 000,50 fuel", "1 000,50", "fuel"],
    ["670000001 5 000 000 000", "5 000 000 000", undefined],
  ])("takes every group of %s as the amount, never a part of it", (text, amount, note) => {
    expect(splitPaymentArgs(text)).toEqual(
      note === undefined ? { phone: "670000001", amount } : { phone: "670000001", amount, note },
    );
  });

  it.each([
    ["670000001 5 000 salary", "5 000", "salary"],
    ["670000001 5 000 FCFA salary", "5 000 FCFA", "salary"],
    ["670000001 5000 12 boxes", "5000", "12 boxes"],
    ["670000001 5 000 12 boxes", "5 000", "12 boxes"],
    ["670000001 12 boxes", "12", "boxes"],
    ["670000001 5k lunch", "5k", "lunch"],
  ])("still reads %s as an amount and a note", (text, amount, note) => {
    expect(splitPaymentArgs(text)).toEqual({ phone: "670000001", amount, note });
  });
});
