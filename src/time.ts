/**
 * Times as users read them: day, month and time of day in the merchant's time zone
 * (`TIME_ZONE`). English adds the zone's UTC offset, so that nobody has to guess whose clock
 * it is: "15 Jan, 12:00 UTC+1". French reads as an office in Douala writes a time, "15 janv.
 * à 12:00": in Cameroon's own zone (the default) the offset is left out, since every reader
 * lives by that clock, and a message that needs the zone names it once in words
 * (`zoneInWords`); in any other zone the offset follows, "15 janv. à 12:00 UTC-5". The offset
 * reads the same in both languages, where zone abbreviations do not (WAT, GMT+1, UTC+1).
 */
import type { Locale } from "./model/locale.js";

/** Cameroon: West Africa Time, UTC+1 all year. */
export const DEFAULT_TIME_ZONE = "Africa/Douala";

/**
 * The canonical IANA name of `zone` (e.g. `africa/douala` → `Africa/Douala`), or undefined
 * when it is not one: an `Area/Location` name (or `UTC`) that this Node's Intl knows.
 */
export function canonicalTimeZone(zone: string): string | undefined {
  if (!/^(UTC|Etc\/[\w+-]+|[A-Za-z]+(\/[\w+-]+)+)$/.test(zone)) return undefined;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const LANGUAGE_TAGS: Record<Locale, string> = { en: "en-GB", fr: "fr-FR" };

/** A formatter of instants (Unix milliseconds) for one language and zone. */
export type FormatTime = (ms: number) => string;

/**
 * One spelling in every language: "GMT+1" (en) and "UTC+1" (fr) read "UTC+1", "UTC−5"
 * (fr, a minus sign) reads "UTC-5" as in English, and "GMT" or "UTC+0" read "UTC".
 */
function utcOffset(name: string): string {
  return name
    .replace(/^GMT/, "UTC")
    .replace(/\u2212/g, "-")
    .replace(/^UTC[+-]0$/, "UTC");
}

/**
 * The time formatter for `locale` in `zone` (an IANA name; see `canonicalTimeZone`).
 * Building an Intl.DateTimeFormat costs far more than using one: callers keep it (i18n.ts
 * builds one per language and zone, with its translator).
 */
export function timeFormatter(locale: Locale, zone: string): FormatTime {
  const format = new Intl.DateTimeFormat(LANGUAGE_TAGS[locale], {
    timeZone: zone,
    day: "2-digit",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "shortOffset",
  });
  if (locale === "fr") return minutesKept(frenchTime(format, zone));
  return minutesKept((ms) => {
    let text = "";
    let offset = "";
    for (const part of format.formatToParts(new Date(ms))) {
      if (part.type === "timeZoneName") offset = utcOffset(part.value);
      else text += part.value;
    }
    return `${text.trim()} ${offset}`;
  });
}

// Since 1973 every zone's offset is a whole number of minutes (Liberia's -0:44:30 ended in
// 1972), so a local day or minute only turns on a UTC minute.
const WHOLE_MINUTE_OFFSETS_FROM_MS = Date.UTC(1973, 0, 1);

/** How many minutes each reader keeps (minutesKept): "now", an expiry, a last payout's time… */
const MINUTES_KEPT = 16;

/**
 * `read`, answering again from a recent call for an instant in the same UTC minute: what is
 * read here (a day, a time to the minute) cannot change inside one. Most calls are about a
 * few instants (now, a prompt's expiry), so most are answered from what is kept.
 */
function minutesKept<T>(read: (ms: number) => T): (ms: number) => T {
  const kept = new Map<number, T>();
  return (ms) => {
    if (ms < WHOLE_MINUTE_OFFSETS_FROM_MS) return read(ms);
    const minute = Math.floor(ms / 60_000);
    const known = kept.get(minute);
    if (known !== undefined) return known;
    const value = read(ms);
    if (kept.size >= MINUTES_KEPT) kept.clear();
    kept.set(minute, value);
    return value;
  };
}

/** "24 nov. à 02:26" (and the offset outside Cameroon's zone): the day, then the time. */
function frenchTime(format: Intl.DateTimeFormat, zone: string): FormatTime {
  return (ms) => {
    const parts = new Map<string, string>();
    for (const part of format.formatToParts(new Date(ms))) parts.set(part.type, part.value);
    const day = Number(parts.get("day"));
    const text = `${day} ${parts.get("month")} à ${parts.get("hour")}:${parts.get("minute")}`;
    const offset = utcOffset(parts.get("timeZoneName") ?? "");
    return zone === DEFAULT_TIME_ZONE ? text : `${text} ${offset}`;
  };
}

/** Cameroon's zone in words; other zones take the name Intl gives them. */
const CAMEROON: Record<Locale, string> = { en: "Cameroon time", fr: "heure du Cameroun" };

/**
 * The zone said in words, with its offset now: "heure du Cameroun (UTC+1)", "Cameroon
 * time (UTC+1)", "heure de l’Est nord-américain (UTC-5)". For the one place a message
 * names the zone (exports, the daily limits), never the IANA name.
 */
export function zoneInWords(locale: Locale, zone: string, nowMs = Date.now()): string {
  const offsetPart = new Intl.DateTimeFormat("en", { timeZone: zone, timeZoneName: "shortOffset" })
    .formatToParts(new Date(nowMs))
    .find((part) => part.type === "timeZoneName");
  const offset = utcOffset(offsetPart?.value ?? "UTC");
  if (zone === DEFAULT_TIME_ZONE) return `${CAMEROON[locale]} (${offset})`;
  const name = new Intl.DateTimeFormat(LANGUAGE_TAGS[locale], {
    timeZone: zone,
    timeZoneName: "longGeneric",
  })
    .formatToParts(new Date(nowMs))
    .find((part) => part.type === "timeZoneName")?.value;
  return name === undefined || /^(UTC|GMT)/.test(name) ? offset : `${name} (${offset})`;
}

/** A calendar day, `YYYY-MM-DD`. */
export type Day = string;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day `text` names when it is a real `YYYY-MM-DD` date (2024-02-30 is not), else undefined. */
export function parseDay(text: string): Day | undefined {
  const match = DAY.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real && year >= 1970 ? text : undefined;
}

// One numeric formatter per zone: the calendar fields of an instant in that zone.
const FIELD_FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function fieldsIn(ms: number, zone: string) {
  let format = FIELD_FORMATTERS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    FIELD_FORMATTERS.set(zone, format);
  }
  const fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  const isField = (type: string): type is keyof typeof fields => type in fields;
  for (const part of format.formatToParts(new Date(ms))) {
    if (isField(part.type)) fields[part.type] = Number(part.value);
  }
  return fields;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

// The days recently read in each zone (minutesKept).
const DAY_READERS = new Map<string, (ms: number) => Day>();

/** The day an instant falls on in `zone`. */
export function dayOf(ms: number, zone: string): Day {
  let read = DAY_READERS.get(zone);
  if (!read) {
    read = minutesKept((at) => {
      const { year, month, day } = fieldsIn(at, zone);
      return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    });
    DAY_READERS.set(zone, read);
  }
  return read(ms);
}

/** The hour (0-23) an instant falls in, in `zone`. */
export function hourOf(ms: number, zone: string): number {
  return fieldsIn(ms, zone).hour;
}

// Calendar days are read at noon UTC: the same day in every zone, whatever the host's.
const DAY_NAMES: Record<Locale, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat("en-GB", {
    timeZone: "UTC",
    weekday: "long",
    day: "numeric",
    month: "long",
  }),
  fr: new Intl.DateTimeFormat("fr-FR", {
    timeZone: "UTC",
    weekday: "long",
    day: "numeric",
    month: "long",
  }),
};

/**
 * A calendar day as a reader says it: "Monday 25 November", "lundi 25 novembre"; French
 * writes the first of the month "1er" ("mercredi 1er janvier").
 */
export function dayInWords(day: Day, locale: Locale): string {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  const text = DAY_NAMES[locale].format(new Date(Date.UTC(year, month - 1, date, 12)));
  return locale === "fr" ? text.replace(/ 1 /, " 1er ") : text;
}

/** `2024-11-23 18:57:03`: an instant in `zone` as spreadsheets read a date and time. */
export function localDateTime(ms: number, zone: string): string {
  const { year, month, day, hour, minute, second } = fieldsIn(ms, zone);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/** How far `zone`'s clock is ahead of UTC at instant `ms`. */
function offsetMs(ms: number, zone: string): number {
  const { year, month, day, hour, minute, second } = fieldsIn(ms, zone);
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The first instant of `day` in `zone` (its midnight; checked twice around offset changes). */
export function startOfDayMs(day: Day, zone: string): number {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  const midnightUtc = Date.UTC(year, month - 1, date);
  const guess = midnightUtc - offsetMs(midnightUtc, zone);
  return midnightUtc - offsetMs(guess, zone);
}

/** The day after `day`. */
export function nextDay(day: Day): Day {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, date + 1)).toISOString().slice(0, 10);
}

/** From the first instant of `from` to the last of `to`, both days in `zone`. */
export function daysWindow(from: Day, to: Day, zone: string): { fromMs: number; toMs: number } {
  return { fromMs: startOfDayMs(from, zone), toMs: startOfDayMs(nextDay(to), zone) - 1 };
}

/**
 * The instant `day` at `hours`:`minutes` on `zone`'s clock (checked twice around offset
 * changes, like startOfDayMs). A time that a clock change skips (02:30 on the night
 * Europe/Paris goes to summer time) reads as the same time on the offset before the change,
 * which the new clock shows an hour later (03:30).
 */
export function localTimeMs(day: Day, hours: number, minutes: number, zone: string): number {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  const asUtc = Date.UTC(year, month - 1, date, hours, minutes);
  const guess = asUtc - offsetMs(asUtc, zone);
  return asUtc - offsetMs(guess, zone);
}

/** The local time of day of an instant in `zone`: hours and minutes. */
export function timeOfDay(ms: number, zone: string): { hours: number; minutes: number } {
  const { hour, minute } = fieldsIn(ms, zone);
  return { hours: hour, minutes: minute };
}
