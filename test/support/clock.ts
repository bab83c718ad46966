/** A clock a test moves by hand: code under test reads `now()`, the test sets `nowMs`. */
export interface FakeClock {
  nowMs: number;
  readonly now: () => number;
}

/** A FakeClock standing at `startMs` (epoch milliseconds) until the test moves it. */
export function fakeClock(startMs: number): FakeClock {
  const clock: FakeClock = { nowMs: startMs, now: () => clock.nowMs };
  return clock;
}
