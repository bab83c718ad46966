import { describe, expect, it } from "vitest";
import { parseWhen, type RunTime, runsAfter } from "../../../../src/payouts/schedule/when.js";
import { localDateTime } from "../../../../src/time.js";

const DOUALA = "Africa/Douala";
const PARIS = "Europe/Paris";
/** 2026-11-25 16:45 UTC. */
const NOW = Date.UTC(2026, 10, 25, 16, 45);
const context = { zone: DOUALA, nowMs: NOW, defaultTime: "09:00" };

const words = (text: string) => text.split(" ");
const local = (runs: RunTime[], zone = DOUALA) => runs.map((run) => localDateTime(run.atMs, zone));

describe("parseWhen", () => {
  it("reads a date in each spelling, with the default time or the one given", () => {
    expect(parseWhen(words("2026-12-24 670000001 5000"), context)).toEqual({
      outcome: "parsed",
      recurrence: { kind: "once", date: "2026-12-24", time: "09:00" },
      words: 1,
    });
    expect(parseWhen(words("24/12/2026 14:30 x"), context)).toEqual({
      outcome: "parsed",
      recurrence: { kind: "once", date: "2026-12-24", time: "14:30" },
      words: 2,
    });
    expect(parseWhen(words("24/12 7:05"), context)).toMatchObject({
      recurrence: { date: "2026-12-24", time: "07:05" },
    });
  });

  it("takes a day and month alone as their next occurrence", () => {
    // 1 March has passed in 2026: next year's.
    expect(parseWhen(words("01/03"), context)).toMatchObject({
      recurrence: { date: "2027-03-01" },
    });
    // 29 February: the next leap year's.
    expect(parseWhen(words("29/02"), context)).toMatchObject({
      recurrence: { date: "2028-02-29" },
    });
  });

  it("refuses a date that does not exist, has passed, or a bad time, saying which", () => {
    expect(parseWhen(words("2026-02-30"), context)).toEqual({
      outcome: "refused",
      problem: "no_such_date",
      word: "2026-02-30",
    });
    expect(parseWhen(words("31/04/2027"), context)).toMatchObject({ problem: "no_such_date" });
    expect(parseWhen(words("31/04"), context)).toMatchObject({ problem: "no_such_date" });
    expect(parseWhen(words("2026-11-25 09:00"), context)).toMatchObject({ problem: "past" });
    expect(parseWhen(words("2026-12-24 25:00"), context)).toEqual({
      outcome: "refused",
      problem: "bad_time",
      word: "25:00",
    });
    expect(parseWhen([], context)).toEqual({ outcome: "refused", problem: "missing" });
    expect(parseWhen(words("tomorrow"), context)).toMatchObject({ problem: "unknown_form" });
  });

  it("reads monthly and weekly, in English and French", () => {
    expect(parseWhen(words("monthly 31 670000001"), context)).toMatchObject({
      recurrence: { kind: "monthly", day: 31, time: "09:00" },
      words: 2,
    });
    expect(parseWhen(words("mensuel dernier 18:00"), context)).toMatchObject({
      recurrence: { kind: "monthly", day: "last", time: "18:00" },
      words: 3,
    });
    expect(parseWhen(words("weekly fri"), context)).toMatchObject({
      recurrence: { kind: "weekly", weekday: 5 },
    });
    expect(parseWhen(words("hebdo dim 08:15"), context)).toMatchObject({
      recurrence: { kind: "weekly", weekday: 7, time: "08:15" },
    });
    expect(parseWhen(words("monthly 32"), context)).toEqual({
      outcome: "refused",
      problem: "bad_month_day",
      word: "32",
    });
    expect(parseWhen(words("monthly"), context)).toEqual({
      outcome: "refused",
      problem: "bad_month_day",
    });
    expect(parseWhen(words("weekly someday"), context)).toMatchObject({ problem: "bad_weekday" });
  });
});

describe("runsAfter", () => {
  it("gives a one-off its single run, with a key of its local date and time", () => {
    const runs = runsAfter({ kind: "once", date: "2026-12-24", time: "09:00" }, DOUALA, NOW, 3);
    expect(runs).toEqual([{ key: "202612240900", atMs: Date.UTC(2026, 11, 24, 8, 0) }]);
    expect(
      runsAfter({ kind: "once", date: "2026-12-24", time: "09:00" }, DOUALA, runs[0]?.atMs ?? 0, 3),
    ).toEqual([]);
  });

  it("pays the 31st on the last day of shorter months, February included", () => {
    const runs = runsAfter({ kind: "monthly", day: 31, time: "09:00" }, DOUALA, NOW, 4);
    expect(local(runs)).toEqual([
      "2026-11-30 09:00:00",
      "2026-12-31 09:00:00",
      "2027-01-31 09:00:00",
      "2027-02-28 09:00:00",
    ]);
    const last = runsAfter(
      { kind: "monthly", day: "last", time: "09:00" },
      DOUALA,
      Date.UTC(2028, 0, 31, 12),
      2,
    );
    expect(local(last)).toEqual(["2028-02-29 09:00:00", "2028-03-31 09:00:00"]);
  });

  it("includes a run later the same day, and steps weekly", () => {
    const today = runsAfter({ kind: "weekly", weekday: 3, time: "18:00" }, DOUALA, NOW, 2);
    // 2026-11-25 is a Wednesday; 18:00 in Douala is still to come at 16:45 UTC.
    expect(local(today)).toEqual(["2026-11-25 18:00:00", "2026-12-02 18:00:00"]);
  });

  it("keeps the local time across a daylight saving change in Europe/Paris", () => {
    const from = Date.UTC(2027, 2, 20);
    const runs = runsAfter({ kind: "weekly", weekday: 1, time: "09:00" }, PARIS, from, 2);
    expect(local(runs, PARIS)).toEqual(["2027-03-22 09:00:00", "2027-03-29 09:00:00"]);
    // 08:00 UTC in winter (UTC+1), 07:00 UTC in summer (UTC+2).
    expect(runs.map((run) => new Date(run.atMs).toISOString())).toEqual([
      "2027-03-22T08:00:00.000Z",
      "2027-03-29T07:00:00.000Z",
    ]);
  });
});
