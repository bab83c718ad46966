import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";
import { rulesEnvShape } from "../../../src/config/rules.js";

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("the rules configuration (approvals, daily limits, duplicates)", () => {
  it("turns approvals and limits off when unset, and warns of duplicates for a day", () => {
    expect(
      loadConfig({ APPROVAL_THRESHOLD_XAF: " ", PAYER_DAILY_LIMIT_XAF: "" }, "demo").rules,
    ).toEqual({
      approvalThresholdXaf: undefined,
      approvalBands: [],
      approvalTtlMs: 86_400_000,
      payerDailyLimitXaf: undefined,
      merchantDailyLimitXaf: undefined,
      duplicateWindowMs: 86_400_000,
      timeZone: "Africa/Douala",
    });
  });

  it("reads every variable, trimmed, in milliseconds where it is a time, in the merchant's zone", () => {
    const config = loadConfig(
      {
        APPROVAL_THRESHOLD_XAF: " 100000 ",
        APPROVAL_TTL_HOURS: "48",
        PAYER_DAILY_LIMIT_XAF: "250000",
        MERCHANT_DAILY_LIMIT_XAF: "2000000",
        DUPLICATE_WINDOW_MINUTES: "30",
        TIME_ZONE: "Africa/Lagos",
      },
      "demo",
    );
    expect(config.rules).toEqual({
      approvalThresholdXaf: 100_000,
      approvalBands: [{ fromXaf: 100_000, signatures: 1, roles: ["admin", "approver"] }],
      approvalTtlMs: 48 * 3_600_000,
      payerDailyLimitXaf: 250_000,
      merchantDailyLimitXaf: 2_000_000,
      duplicateWindowMs: 30 * 60_000,
      timeZone: "Africa/Lagos",
    });
  });

  it("turns the duplicate warning off with 0", () => {
    expect(loadConfig({ DUPLICATE_WINDOW_MINUTES: "0" }, "demo").rules.duplicateWindowMs).toBe(0);
  });

  it("lists every bad value at once, each with what it must be", () => {
    expect(
      problemsOf({
        APPROVAL_THRESHOLD_XAF: "5000001",
        APPROVAL_TTL_HOURS: "0",
        PAYER_DAILY_LIMIT_XAF: "10k",
        MERCHANT_DAILY_LIMIT_XAF: "-1",
        DUPLICATE_WINDOW_MINUTES: "1.5",
      }),
    ).toEqual([
      'APPROVAL_THRESHOLD_XAF: must be a whole number from 1 to 5000000, or unset (got "5000001")',
      'APPROVAL_TTL_HOURS: must be a whole number from 1 to 720 (got "0")',
      'PAYER_DAILY_LIMIT_XAF: must be a whole number from 1 to 1000000000000, or unset (got "10k")',
      'MERCHANT_DAILY_LIMIT_XAF: must be a whole number from 1 to 1000000000000, or unset (got "-1")',
      'DUPLICATE_WINDOW_MINUTES: must be a whole number from 0 to 43200 (got "1.5")',
    ]);
  });

  it("refuses approvals that would outlive the retention, or a window longer than it", () => {
    expect(
      problemsOf({
        PAYOUT_RETENTION_DAYS: "2",
        APPROVAL_THRESHOLD_XAF: "100000",
        APPROVAL_TTL_HOURS: "48",
        DUPLICATE_WINDOW_MINUTES: "2881",
      }),
    ).toEqual([
      "APPROVAL_TTL_HOURS: must be shorter than PAYOUT_RETENTION_DAYS (2 days), which is how long a payout awaiting approval is kept",
      "DUPLICATE_WINDOW_MINUTES: must be at most PAYOUT_RETENTION_DAYS (2 days); older payouts are not kept to compare with",
    ]);
    const retention = { PAYOUT_RETENTION_DAYS: "2", APPROVAL_THRESHOLD_XAF: "100000" };
    expect(loadConfig({ ...retention, APPROVAL_TTL_HOURS: "47" }, "demo").rules.approvalTtlMs).toBe(
      47 * 3_600_000,
    );
    // Without approvals, how long one would wait does not matter.
    expect(() => loadConfig({ PAYOUT_RETENTION_DAYS: "1" }, "demo")).not.toThrow();
  });

  it.each(Object.keys(rulesEnvShape))(
    "documents %s in .env.example and docs/configuration.md",
    (name) => {
      const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
      const readme = readFileSync(
        new URL("../../../docs/configuration.md", import.meta.url),
        "utf8",
      );
      expect(example).toMatch(new RegExp(`^# ${name}=`, "m"));
      expect(readme).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, "m"));
    },
  );
});
