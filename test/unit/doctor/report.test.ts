/**
 * The doctor's verdicts that need no network: how a line reads, which exit code a set of
 * results makes, and where the clock's skew turns into a warning and a failure.
 */
import { describe, expect, it } from "vitest";
import { CLOCK_FAIL_MS, CLOCK_WARN_MS, clockVerdict } from "../../../src/doctor/payment.js";
import {
  DeadlineError,
  exitCodeOf,
  fail,
  formatResult,
  ok,
  summarize,
  warn,
  withinDeadline,
} from "../../../src/doctor/report.js";

describe("a doctor line", () => {
  it("reads mark, name, fact and, for a failure, the fix, on one line", () => {
    expect(formatResult(fail("redis", "not\nreachable", "Start Redis."))).toBe(
      "✗ redis                  not reachable fix: Start Redis.",
    );
    expect(formatResult(ok("time zone", "UTC"))).toBe("✓ time zone              UTC");
    expect(formatResult(warn("events url", "unset"))).toBe("! events url             unset");
  });

  it("exits 0 with warnings, 1 with a failure", () => {
    expect(exitCodeOf([ok("a", "x"), warn("b", "y")])).toBe(0);
    expect(exitCodeOf([ok("a", "x"), fail("b", "y", "z")])).toBe(1);
    expect(summarize([ok("a", "x"), warn("b", "y"), fail("c", "z", "f")])).toBe(
      "3 checks: 1 passed, 1 warning, 1 failed (not ready: fix the ✗ lines and run it again)",
    );
  });

  it("gives up on work past its deadline, naming it", async () => {
    const never = new Promise<never>(() => {});
    await expect(withinDeadline("Redis (INFO)", 20, never)).rejects.toThrow(DeadlineError);
    await expect(withinDeadline("Redis (INFO)", 20, never)).rejects.toThrow(
      "Redis (INFO) did not answer within 20 ms",
    );
  });
});

describe("the clock check", () => {
  it("holds within the warning bound, on either side", () => {
    expect(clockVerdict(0).status).toBe("ok");
    expect(clockVerdict(CLOCK_WARN_MS).status).toBe("ok");
    expect(clockVerdict(-CLOCK_WARN_MS).status).toBe("ok");
  });

  it("warns past a few seconds and fails past a minute, with NTP as the fix", () => {
    expect(clockVerdict(CLOCK_WARN_MS + 1).status).toBe("warn");
    expect(clockVerdict(-CLOCK_FAIL_MS).status).toBe("warn");
    const late = clockVerdict(-(CLOCK_FAIL_MS + 1));
    expect(late.status).toBe("fail");
    expect(late.fact).toBe("60.0 s behind the Payment API's Date");
    expect(late.fix).toContain("NTP");
    expect(clockVerdict(90_000).fact).toBe("90.0 s ahead of the Payment API's Date");
  });
});
