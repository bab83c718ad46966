import { describe, expect, it } from "vitest";
import { FailureStreakLog } from "../../../src/payouts/failure-log.js";
import { capturedLogger } from "../../support/logs.js";

describe("FailureStreakLog", () => {
  it("logs the first failure of a streak as an error, the repeats at debug, and the recovery", () => {
    const { logger, lines } = capturedLogger();
    const log = new FailureStreakLog(logger, "tracking tick");
    for (let i = 0; i < 50; i++) log.failed(new Error("Connection is closed."));
    log.succeeded();
    log.succeeded();
    log.failed(new Error("again"));

    const errors = lines.filter((line) => line.level === 50);
    expect(errors.map((line) => line.msg)).toEqual([
      "tracking tick failed",
      "tracking tick failed",
    ]);
    expect(lines.filter((line) => line.level === 20)).toHaveLength(49);
    expect(lines.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      "tracking tick works again",
    ]);
  });
});
