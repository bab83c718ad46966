import { describe, expect, it } from "vitest";
import { checkRows, namesMatch, payableOf } from "../../../../src/payouts/batch/checks.js";

describe("batch row checks", () => {
  it("matches names by their words, whatever the case, accents and order", () => {
    expect(namesMatch("jean dupont", "DUPONT Jean-Marc")).toBe(true);
    expect(namesMatch("Aicha", "Aïcha Nkoulou")).toBe(true);
    expect(namesMatch("Paul", "Jean Dupont")).toBe(false);
    expect(namesMatch("", "Jean Dupont")).toBe(false);
  });

  it("reads each row like /pay, flags repeats of number and amount, and totals the rest", () => {
    const rows = checkRows([
      { row: 2, phone: "670000001", amount: "1 000" },
      { row: 3, phone: "12345", amount: "1000" },
      { row: 4, phone: "690000001", amount: "0" },
      { row: 5, phone: "+237 670 000 001", amount: "1000", note: "again" },
      { row: 6, phone: "670000001", amount: "2000", name: "Jean" },
    ]);
    expect(rows.map((row) => [row.row, row.problem, row.problemDetail])).toEqual([
      [2, undefined, undefined],
      [3, "bad_phone", expect.any(String)],
      [4, "bad_amount", "zero"],
      [5, "duplicate", "2"],
      [6, undefined, undefined],
    ]);
    expect(rows[4]).toMatchObject({ phone: "237670000001", amount: 2000, expectedName: "Jean" });
    expect(payableOf(rows)).toEqual({ payableRows: 2, totalXaf: 3000 });
  });

  it("reads an alias through the saved recipients, expecting its saved name, and flags an unknown one", () => {
    const saved = new Map([["aicha", { phone: "237690000001", savedName: "Aïcha Nkoulou" }]]);
    const rows = checkRows(
      [
        { row: 2, phone: "AICHA", amount: "1000" },
        { row: 3, phone: "paul", amount: "1000" },
        { row: 4, phone: "aïcha", amount: "2000", name: "Aicha" },
      ],
      saved,
    );
    expect(rows.map((row) => [row.row, row.problem, row.problemDetail])).toEqual([
      [2, undefined, undefined],
      [3, "unknown_alias", "paul"],
      [4, undefined, undefined],
    ]);
    expect(rows[0]).toMatchObject({
      phoneText: "AICHA",
      phone: "237690000001",
      operator: "orange",
      expectedName: "Aïcha Nkoulou",
    });
    expect(rows[2]).toMatchObject({ phone: "237690000001", expectedName: "Aicha" });
  });
});
