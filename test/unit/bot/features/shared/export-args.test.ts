import { describe, expect, it } from "vitest";
import { parseExportArgs, periodText } from "../../../../../src/bot/features/shared/export-args.js";

const TODAY = "2024-11-23";

describe("parseExportArgs", () => {
  it("takes today, one day, or a period, of payouts or of the audit trail", () => {
    expect(parseExportArgs("", TODAY)).toEqual({
      ok: true,
      what: "payouts",
      from: TODAY,
      to: TODAY,
    });
    expect(parseExportArgs(" 2024-11-01 ", TODAY)).toMatchObject({
      from: "2024-11-01",
      to: "2024-11-01",
    });
    expect(parseExportArgs("AUDIT 2024-11-01  2024-11-30", TODAY)).toEqual({
      ok: true,
      what: "audit",
      from: "2024-11-01",
      to: "2024-11-30",
    });
    expect(parseExportArgs("audit", TODAY)).toMatchObject({ what: "audit", from: TODAY });
  });

  it("names a word that is not a day, and refuses a period backwards or too many words", () => {
    expect(parseExportArgs("2024-11-31", TODAY)).toEqual({
      ok: false,
      problem: "date",
      text: "2024-11-31",
    });
    expect(parseExportArgs("2024-11-02 2024-11-01", TODAY)).toEqual({
      ok: false,
      problem: "order",
    });
    expect(parseExportArgs("2024-11-01 2024-11-02 2024-11-03", TODAY)).toEqual({
      ok: false,
      problem: "usage",
    });
  });

  it("writes a period as one day or both ends", () => {
    expect(periodText("2024-11-01", "2024-11-01")).toBe("2024-11-01");
    expect(periodText("2024-11-01", "2024-11-30", "-to-")).toBe("2024-11-01-to-2024-11-30");
  });
});
