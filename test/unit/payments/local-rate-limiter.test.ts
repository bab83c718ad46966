import { describe, expect, it } from "vitest";
import { LocalRateLimiter } from "../../../src/payments/local-rate-limiter.js";

function fakeClock(startMs = 1_000_000) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe("LocalRateLimiter", () => {
  it("grants up to the limit, then says how long until the oldest grant leaves the window", async () => {
    const clock = fakeClock();
    const limiter = new LocalRateLimiter({ limit: 3, windowMs: 1_000, now: clock.now });
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
    clock.advance(100);
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
    clock.advance(200);
    expect(await limiter.tryAcquire()).toEqual({ granted: false, retryInMs: 700 });
  });

  it("grants again exactly when the oldest grant leaves the window, and not a millisecond before", async () => {
    const clock = fakeClock();
    const limiter = new LocalRateLimiter({ limit: 2, windowMs: 1_000, now: clock.now });
    await limiter.tryAcquire();
    clock.advance(10);
    await limiter.tryAcquire();
    clock.advance(989);
    expect(await limiter.tryAcquire()).toEqual({ granted: false, retryInMs: 1 });
    clock.advance(1);
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
    expect(await limiter.tryAcquire()).toEqual({ granted: false, retryInMs: 10 });
  });

  it("gives background work (leave) its share whatever people took, within the whole limit", async () => {
    const clock = fakeClock();
    const limiter = new LocalRateLimiter({ limit: 4, windowMs: 1_000, now: clock.now });
    // A person first: background work, leaving 2, still gets its 2.
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
    clock.advance(100);
    expect(await limiter.tryAcquire(2)).toEqual({ granted: true });
    clock.advance(100);
    expect(await limiter.tryAcquire(2)).toEqual({ granted: true });
    // Its share is full: it waits for its own oldest grant, at 100 ms.
    expect(await limiter.tryAcquire(2)).toEqual({ granted: false, retryInMs: 900 });
    // A person still finds the last slot; then the whole limit is full for everyone.
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
    expect(await limiter.tryAcquire()).toEqual({ granted: false, retryInMs: 800 });
    // When the person's first grant leaves, background work's share is still full.
    clock.advance(800);
    expect(await limiter.tryAcquire(2)).toEqual({ granted: false, retryInMs: 100 });
    expect(await limiter.tryAcquire()).toEqual({ granted: true });
  });

  it("never grants more than the limit in any window over a long run", async () => {
    const clock = fakeClock();
    const limit = 5;
    const windowMs = 100;
    const limiter = new LocalRateLimiter({ limit, windowMs, now: clock.now });
    const grants: number[] = [];
    for (let step = 0; step < 2_000; step++) {
      if ((await limiter.tryAcquire()).granted) grants.push(clock.now());
      clock.advance(step % 7);
    }
    for (let index = limit; index < grants.length; index++) {
      expect((grants[index] ?? 0) - (grants[index - limit] ?? 0)).toBeGreaterThanOrEqual(windowMs);
    }
    // It is not simply refusing: close to `limit` per window over the run.
    const windows = (clock.now() - 1_000_000) / windowMs;
    expect(grants.length).toBeGreaterThanOrEqual(Math.floor(windows * limit * 0.9));
  });

  it("keeps the retry hint positive when the clock has not moved", async () => {
    const clock = fakeClock();
    const limiter = new LocalRateLimiter({ limit: 1, windowMs: 50, now: clock.now });
    await limiter.tryAcquire();
    const refused = await limiter.tryAcquire();
    expect(refused).toEqual({ granted: false, retryInMs: 50 });
  });

  it.each([
    { limit: 0, windowMs: 1_000 },
    { limit: 1.5, windowMs: 1_000 },
    { limit: 10, windowMs: 0 },
    { limit: 10, windowMs: Number.NaN },
  ])("refuses bad options %j at construction", (options) => {
    expect(() => new LocalRateLimiter(options)).toThrow(TypeError);
  });

  it("uses the real clock by default", async () => {
    const limiter = new LocalRateLimiter({ limit: 1, windowMs: 60_000 });
    expect((await limiter.tryAcquire()).granted).toBe(true);
    const refused = await limiter.tryAcquire();
    expect(refused.granted).toBe(false);
    if (!refused.granted) expect(refused.retryInMs).toBeGreaterThan(59_000);
  });
});
