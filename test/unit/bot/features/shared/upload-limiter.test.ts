import { describe, expect, it } from "vitest";
import { UploadLimiter } from "../../../../../src/bot/features/shared/upload-limiter.js";

describe("UploadLimiter", () => {
  it("reads one file at a time per person, others meanwhile", () => {
    const limiter = new UploadLimiter(5, () => 0);
    const first = limiter.take(1);
    expect(first.ok).toBe(true);
    expect(limiter.take(1)).toEqual({ ok: false, reason: "reading" });
    expect(limiter.take(2).ok).toBe(true);
    if (first.ok) first.done();
    expect(limiter.take(1).ok).toBe(true);
  });

  it("refuses the file over the per-minute count until a minute has passed", () => {
    let nowMs = 0;
    const limiter = new UploadLimiter(2, () => nowMs);
    for (const _ of [1, 2]) {
      const turn = limiter.take(7);
      if (turn.ok) turn.done();
      nowMs += 1000;
    }
    expect(limiter.take(7)).toEqual({ ok: false, reason: "too_many", perMinute: 2 });
    nowMs = 60_000;
    expect(limiter.take(7).ok).toBe(true);
  });
});
