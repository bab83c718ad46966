import { describe, expect, it } from "vitest";
import { parseApprovalRules } from "../../../src/config/approval-rules.js";
import { ConfigError, loadConfig } from "../../../src/config/index.js";
import { bandOf } from "../../../src/model/approval-rules.js";

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

const DECIDERS = ["admin", "approver"];

describe("parseApprovalRules (APPROVAL_RULES)", () => {
  it("reads bands from the smallest, with the deciding roles when none are named", () => {
    expect(parseApprovalRules("100000:1; 1000000:2(approver,admin)")).toEqual({
      bands: [
        { fromXaf: 100_000, signatures: 1, roles: DECIDERS },
        { fromXaf: 1_000_000, signatures: 2, roles: ["admin", "approver"] },
      ],
    });
  });

  it("allows spaces around every part, a trailing separator and a band of admins only", () => {
    expect(parseApprovalRules(" 5000 : 1 ;2000000:3( admin ) ; ")).toEqual({
      bands: [
        { fromXaf: 5000, signatures: 1, roles: DECIDERS },
        { fromXaf: 2_000_000, signatures: 3, roles: ["admin"] },
      ],
    });
  });

  it.each([
    ["", "must name at least one band, e.g. 100000:1; 1000000:2(approver,admin)"],
    ["100000", 'band "100000": must be FROM:N or FROM:N(role,role), e.g. 100000:1'],
    ["abc:1", 'band "abc:1": FROM must be a whole number from 1 to 5000000'],
    ["0:1", 'band "0:1": FROM must be a whole number from 1 to 5000000'],
    ["6000000:1", 'band "6000000:1": FROM must be a whole number from 1 to 5000000'],
    ["100000:4", 'band "100000:4": N (signatures) must be 1, 2 or 3'],
    ["100000:0", 'band "100000:0": N (signatures) must be 1, 2 or 3'],
    [
      "100000:2(payer)",
      'band "100000:2(payer)": role "payer" may not approve; use approver or admin',
    ],
    ["100000:2()", 'band "100000:2()": name at least one role in the brackets, or none at all'],
    ["100000:2(admin,admin)", 'band "100000:2(admin,admin)": role "admin" is named twice'],
    ["100000:2(admin", 'band "100000:2(admin": must be FROM:N or FROM:N(role,role), e.g. 100000:1'],
    [
      "1000000:2; 100000:1",
      'band "100000:1": bands must go from the smallest amount up (after 1000000)',
    ],
    [
      "100000:1; 100000:2",
      'band "100000:2": bands must go from the smallest amount up (after 100000)',
    ],
  ])("refuses %j, naming the bad part", (text, message) => {
    expect(parseApprovalRules(text)).toEqual({ problems: [message] });
  });

  it("lists every bad band at once", () => {
    expect(parseApprovalRules("x:1; 100:9")).toEqual({
      problems: [
        'band "x:1": FROM must be a whole number from 1 to 5000000',
        'band "100:9": N (signatures) must be 1, 2 or 3',
      ],
    });
  });
});

describe("bandOf", () => {
  const { bands } = parseApprovalRules("100000:1; 1000000:2(approver,admin)") as {
    bands: Parameters<typeof bandOf>[0];
  };

  it("finds the highest band an amount reaches, none under the first", () => {
    expect(bandOf(bands, 99_999)).toBeUndefined();
    expect(bandOf(bands, 100_000)?.signatures).toBe(1);
    expect(bandOf(bands, 999_999)?.signatures).toBe(1);
    expect(bandOf(bands, 1_000_000)?.signatures).toBe(2);
  });
});

describe("the APPROVAL_RULES variable", () => {
  it("sets the bands, and the threshold from the first", () => {
    const { rules } = loadConfig({ APPROVAL_RULES: "100000:1; 1000000:2(approver,admin)" }, "demo");
    expect(rules.approvalThresholdXaf).toBe(100_000);
    expect(rules.approvalBands).toHaveLength(2);
  });

  it("reads APPROVAL_THRESHOLD_XAF=X alone as X:1 with today's deciders", () => {
    const { rules } = loadConfig({ APPROVAL_THRESHOLD_XAF: "50000" }, "demo");
    expect(rules.approvalBands).toEqual([{ fromXaf: 50_000, signatures: 1, roles: DECIDERS }]);
  });

  it("has no bands when neither is set", () => {
    expect(loadConfig({}, "demo").rules.approvalBands).toEqual([]);
  });

  it("refuses both set, naming both", () => {
    expect(problemsOf({ APPROVAL_RULES: "100000:1", APPROVAL_THRESHOLD_XAF: "100000" })).toEqual([
      "APPROVAL_RULES and APPROVAL_THRESHOLD_XAF: set one of them, not both (APPROVAL_THRESHOLD_XAF=X means APPROVAL_RULES=X:1)",
    ]);
  });

  it("prefixes each problem with the variable's name", () => {
    expect(problemsOf({ APPROVAL_RULES: "100000:5" })).toEqual([
      'APPROVAL_RULES: band "100000:5": N (signatures) must be 1, 2 or 3',
    ]);
  });
});
