import { type Day, dayOf, nextDay, startOfDayMs } from "../../src/time.js";

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

/**
 * A clock that runs with real time, shifted to a wall-clock time of one day in `zone`: the
 * first day whose 19:59 is still to come, so a test can step across a digest hour of 20.
 * Never behind real time: what the stores stamp with Redis's own clock (the outbox) must
 * not lie in the apps' future.
 */
export interface ShiftedDayClock {
  /** The day the clock stands in. */
  readonly day: Day;
  /** The apps' time: real time plus the shift. */
  readonly now: () => number;
  /** Moves the clock to `hh:mm:ss` of `day` in the zone. */
  setLocalTime(hours: number, minutes: number, seconds: number): void;
}

export function shiftedDayClock(zone: string): ShiftedDayClock {
  const today = dayOf(Date.now(), zone);
  const day = startOfDayMs(today, zone) + 19 * 3_600_000 > Date.now() ? today : nextDay(today);
  let shiftMs = 0;
  return {
    day,
    now: () => Date.now() + shiftMs,
    setLocalTime(hours, minutes, seconds) {
      const midnight = startOfDayMs(day, zone);
      shiftMs = midnight + ((hours * 60 + minutes) * 60 + seconds) * 1000 - Date.now();
    },
  };
}
