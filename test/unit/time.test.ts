import { describe, expect, it } from "vitest";
import {
  dayInWords,
  dayOf,
  daysWindow,
  hourOf,
  localDateTime,
  nextDay,
  parseDay,
  startOfDayMs,
  timeFormatter,
} from "../../src/time.js";

describe("dayInWords", () => {
  it("says a calendar day as each language says it, whatever the host's zone", () => {
    expect(dayInWords("2026-11-25", "fr")).toBe("mercredi 25 novembre");
    expect(dayInWords("2026-11-25", "en")).toBe("Wednesday 25 November");
    expect(dayInWords("2025-01-01", "fr")).toBe("mercredi 1er janvier");
    expect(dayInWords("2025-01-11", "fr")).toBe("samedi 11 janvier");
  });
});

describe("days in a time zone", () => {
  it("reads only real YYYY-MM-DD days", () => {
    expect(parseDay("2024-02-29")).toBe("2024-02-29");
    for (const text of ["2023-02-29", "2024-13-01", "2024-1-01", "01/02/2024", "today", ""]) {
      expect(parseDay(text), text).toBeUndefined();
    }
  });

  it("starts a day at its midnight in the zone, across offset changes", () => {
    expect(new Date(startOfDayMs("2024-11-23", "Africa/Douala")).toISOString()).toBe(
      "2024-11-22T23:00:00.000Z",
    );
    expect(new Date(startOfDayMs("2024-11-23", "Asia/Kolkata")).toISOString()).toBe(
      "2024-11-22T18:30:00.000Z",
    );
    // Paris changes offset on these days, at 02:00 and 03:00: midnight is still midnight.
    expect(new Date(startOfDayMs("2024-03-31", "Europe/Paris")).toISOString()).toBe(
      "2024-03-30T23:00:00.000Z",
    );
    expect(new Date(startOfDayMs("2024-10-27", "Europe/Paris")).toISOString()).toBe(
      "2024-10-26T22:00:00.000Z",
    );
  });

  it("tells the day, the hour and the local date and time of an instant", () => {
    const late = Date.UTC(2024, 10, 22, 23, 30, 5);
    expect(dayOf(late, "Africa/Douala")).toBe("2024-11-23");
    expect(dayOf(late, "UTC")).toBe("2024-11-22");
    expect(hourOf(late, "Africa/Douala")).toBe(0);
    expect(localDateTime(late, "Africa/Douala")).toBe("2024-11-23 00:30:05");
  });

  it("gives a period from the first instant of its first day to the last of its last", () => {
    expect(nextDay("2024-12-31")).toBe("2025-01-01");
    expect(daysWindow("2024-11-01", "2024-11-30", "UTC")).toEqual({
      fromMs: Date.UTC(2024, 10, 1),
      toMs: Date.UTC(2024, 11, 1) - 1,
    });
  });
});

describe("dayOf", () => {
  it("counts the day in the merchant's zone, not in UTC", () => {
    // 23:30 UTC on 22 Nov is 00:30 on 23 Nov in Douala (UTC+1).
    const lateEvening = Date.UTC(2024, 10, 22, 23, 30);
    expect(dayOf(lateEvening, "Africa/Douala")).toBe("2024-11-23");
    expect(dayOf(lateEvening, "UTC")).toBe("2024-11-22");
    expect(dayOf(lateEvening, "America/New_York")).toBe("2024-11-22");
  });

  it("starts a new day at midnight, local time", () => {
    const midnight = Date.UTC(2024, 11, 31, 23, 0); // 00:00 on 1 Jan in Douala
    expect(dayOf(midnight - 1, "Africa/Douala")).toBe("2024-12-31");
    expect(dayOf(midnight, "Africa/Douala")).toBe("2025-01-01");
  });

  it("answers from a recent read only inside the same minute, in each zone on its own", () => {
    const midnight = Date.UTC(2024, 11, 31, 23, 0); // 00:00 on 1 Jan in Douala
    for (let round = 0; round < 3; round += 1) {
      expect(dayOf(midnight - 1, "Africa/Douala")).toBe("2024-12-31");
      expect(dayOf(midnight - 1, "UTC")).toBe("2024-12-31");
      expect(dayOf(midnight, "Africa/Douala")).toBe("2025-01-01");
      expect(dayOf(midnight + 59_999, "Africa/Douala")).toBe("2025-01-01");
      expect(dayOf(midnight + 3_600_000, "UTC")).toBe("2025-01-01");
    }
  });

  it("reads every instant afresh where a zone's day turned inside a UTC minute (before 1973)", () => {
    // Monrovia kept -0:44:30 until 1972: its 1 Jan 1970 began at 00:44:30 UTC.
    const midnight = Date.UTC(1970, 0, 1, 0, 44, 30);
    expect(dayOf(midnight - 1_000, "Africa/Monrovia")).toBe("1969-12-31");
    expect(dayOf(midnight, "Africa/Monrovia")).toBe("1970-01-01");
    expect(dayOf(midnight - 1_000, "Africa/Monrovia")).toBe("1969-12-31");
  });
});

describe("timeFormatter", () => {
  it("tells each minute apart, and the same minute alike, in both languages", () => {
    const at = Date.UTC(2026, 10, 25, 13, 26, 5); // 14:26 in Douala
    const en = timeFormatter("en", "Africa/Douala");
    const fr = timeFormatter("fr", "Africa/Douala");
    expect(en(at)).toBe(en(at + 50_000));
    expect(fr(at)).toBe("25 nov. à 14:26");
    expect(fr(at + 60_000)).toBe("25 nov. à 14:27");
    expect(fr(at)).toBe("25 nov. à 14:26");
    expect(en(at + 60_000)).not.toBe(en(at));
    expect(en(at + 60_000)).toContain("14:27");
  });
});
