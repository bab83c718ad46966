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

  it("paces work that leaves a reserve at the limit's own rate, in bursts no larger than the reserve", async () => {
    const clock = fakeClock();
    const limiter = new LocalRateLimiter({ limit: 10, windowMs: 1_000, now: clock.now });
    const grants: number[] = [];
    for (let ms = 0; ms < 5_000; ms += 1) {
      if ((await limiter.tryAcquire(2)).granted) grants.push(clock.now());
      clock.advance(1);
    }
    // Pace: 2 in any 200 ms (10 a second on average); the window: 8 in any 1000 ms.
    for (let index = 2; index < grants.length; index++) {
      expect((grants[index] ?? 0) - (grants[index - 2] ?? 0)).toBeGreaterThanOrEqual(200);
    }
    for (let index = 8; index < grants.length; index++) {
      expect((grants[index] ?? 0) - (grants[index - 8] ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
    // And all of its share: 8 a second over the 5 s.
    expect(grants.length).toBeGreaterThanOrEqual(39);
  });

  it("serves a person at once however long background work has kept the window full", async () => {
    const clock = fakeClock();
    // Production's shape: 300 a window, background leaving 6.
    const limiter = new LocalRateLimiter({ limit: 300, windowMs: 61_000, now: clock.now });
    const refusedPeople: number[] = [];
    let background = 0;
    let people = 0;
    for (let ms = 0; ms < 300_000; ms += 5) {
      // Background work asks all the time (a batch, its re-reads)…
      if ((await limiter.tryAcquire(6)).granted) background += 1;
      // …and a person at the desk asks twice every 10 s (a look-up, then a disbursement).
      if (ms % 10_000 === 0 || ms % 10_000 === 3_000) {
        if ((await limiter.tryAcquire()).granted) people += 1;
        else refusedPeople.push(ms);
      }
      clock.advance(5);
    }
    expect(refusedPeople).toEqual([]);
    expect(people).toBe(60);
    // Background and people together used nearly all of the 300 a window.
    expect(background + people).toBeGreaterThanOrEqual(Math.floor((300_000 / 61_000) * 294));
  });

  it("uses the real clock by default", async () => {
    const limiter = new LocalRateLimiter({ limit: 1, windowMs: 60_000 });
    expect((await limiter.tryAcquire()).granted).toBe(true);
    const refused = await limiter.tryAcquire();
    expect(refused.granted).toBe(false);
    if (!refused.granted) expect(refused.retryInMs).toBeGreaterThan(59_000);
  });
});
