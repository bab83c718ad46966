import { describe, expect, it } from "vitest";
import { restingPauseMs } from "../../../../src/payouts/loops/runner.js";

const rest = { restMs: 10_000, tickMs: 500, now: () => 1_000_000 };

describe("restingPauseMs", () => {
  it("rests the whole rest when nothing is queued", async () => {
    expect(await restingPauseMs(rest, async () => null)).toBe(10_000);
  });

  it("rests only until the next work is due", async () => {
    expect(await restingPauseMs(rest, async () => 1_003_000)).toBe(3_000);
  });

  it("never rests longer than the rest, however far the next work is", async () => {
    expect(await restingPauseMs(rest, async () => 9_000_000)).toBe(10_000);
  });

  it("keeps the loop's own pace for work due now or overdue", async () => {
    expect(await restingPauseMs(rest, async () => 999_000)).toBe(500);
  });
});
