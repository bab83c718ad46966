/**
 * The `<when>` of `/schedule <when> <recipient> <amount> [note]`, read and turned into run
 * times, all in TIME_ZONE (daylight saving included: a run at 09:00 stays at 09:00 on the
 * local clock across a change). Pure: no I/O, the time is passed in.
 *
 * Forms: a date (`2026-12-24`, `24/12`, `24/12/2026`) with an optional `HH:MM` (default
 * SCHEDULE_DEFAULT_TIME); `monthly <1-31|last>` (French `mensuel <1-31|dernier>`);
 * `weekly <mon…sun>` (French `hebdo <lun…dim>`), each with an optional `HH:MM`.
 */
import type { Recurrence } from "../../model/schedule.js";
import { type Day, dayOf, localTimeMs, nextDay, parseDay } from "../../time.js";

/** Why a `<when>` was refused, with the word that was wrong where there is one. */
export type WhenProblem =
  /** Nothing after /schedule. */
  | "missing"
  /** The first word is neither a date nor monthly/weekly. */
  | "unknown_form"
  /** A date that does not exist (31/04, 2026-02-30). */
  | "no_such_date"
  /** A date and time already past. */
  | "past"
  /** monthly without a day from 1 to 31 or `last`. */
  | "bad_month_day"
  /** weekly without a day of the week. */
  | "bad_weekday"
  /** A time that is not HH:MM from 00:00 to 23:59. */
  | "bad_time";

export type WhenResult =
  | { outcome: "parsed"; recurrence: Recurrence; words: number }
  | { outcome: "refused"; problem: WhenProblem; word?: string };

export interface WhenContext {
  zone: string;
  nowMs: number;
  /** SCHEDULE_DEFAULT_TIME, `HH:MM`. */
  defaultTime: string;
}

const WEEKDAYS: Record<string, number> = {
  mon: 1,
  tue: 2,
  wed: 3,
  thu: 4,
  fri: 5,
  sat: 6,
  sun: 7,
  lun: 1,
  mar: 2,
  mer: 3,
  jeu: 4,
  ven: 5,
  sam: 6,
  dim: 7,
};

const TIME = /^(\d{1,2})[:h](\d{2})$/i;
const LOOKS_LIKE_TIME = /^\d{1,2}[:h]\d{1,2}$/i;
const ISO_DATE = /^\d{4}-\d{1,2}-\d{1,2}$/;
const SLASH_DATE = /^(\d{1,2})\/(\d{1,2})(?:\/(\d{4}))?$/;

/** `HH:MM` from a word, or undefined when it is not a valid time. */
function readTime(word: string): string | undefined {
  const match = TIME.exec(word);
  if (!match) return undefined;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  if (hours > 23 || minutes > 59) return undefined;
  return `${String(hours).padStart(2, "0")}:${String(minutes).padStart(2, "0")}`;
}

/** The optional time after `used` words: how many more words it took, or a problem. */
function optionalTime(
  words: readonly string[],
  used: number,
  defaultTime: string,
): { time: string; words: number } | { problem: "bad_time"; word: string } {
  const word = words[used];
  if (word === undefined || !LOOKS_LIKE_TIME.test(word)) return { time: defaultTime, words: used };
  const time = readTime(word);
  return time === undefined ? { problem: "bad_time", word } : { time, words: used + 1 };
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** The instant of `time` on `day` in `zone`. */
export function atTime(day: Day, time: string, zone: string): number {
  const [hours = 0, minutes = 0] = time.split(":").map(Number);
  return localTimeMs(day, hours, minutes, zone);
}

/** Reads the `<when>` at the start of `words`; `words` says how many it took. */
export function parseWhen(words: readonly string[], context: WhenContext): WhenResult {
  const first = words[0]?.toLowerCase();
  if (first === undefined) return { outcome: "refused", problem: "missing" };
  if (first === "monthly" || first === "mensuel") return monthly(words, context);
  if (first === "weekly" || first === "hebdo") return weekly(words, context);
  if (ISO_DATE.test(first) || SLASH_DATE.test(first)) return once(words, context);
  return { outcome: "refused", problem: "unknown_form", word: words[0] };
}

function monthly(words: readonly string[], context: WhenContext): WhenResult {
  const word = words[1];
  const text = word?.toLowerCase();
  let day: number | "last" | undefined;
  if (text === "last" || text === "dernier") day = "last";
  else if (text !== undefined && /^\d{1,2}$/.test(text)) {
    const number = Number(text);
    if (number >= 1 && number <= 31) day = number;
  }
  if (day === undefined) return { outcome: "refused", problem: "bad_month_day", ...wordOf(word) };
  const time = optionalTime(words, 2, context.defaultTime);
  if ("problem" in time) return { outcome: "refused", ...time };
  return {
    outcome: "parsed",
    recurrence: { kind: "monthly", day, time: time.time },
    words: time.words,
  };
}

function weekly(words: readonly string[], context: WhenContext): WhenResult {
  const word = words[1];
  const weekday = word === undefined ? undefined : WEEKDAYS[word.toLowerCase().slice(0, 3)];
  const known = word !== undefined && /^[a-zé.]{3,9}$/i.test(word);
  if (weekday === undefined || !known) {
    return { outcome: "refused", problem: "bad_weekday", ...wordOf(word) };
  }
  const time = optionalTime(words, 2, context.defaultTime);
  if ("problem" in time) return { outcome: "refused", ...time };
  return {
    outcome: "parsed",
    recurrence: { kind: "weekly", weekday, time: time.time },
    words: time.words,
  };
}

function once(words: readonly string[], context: WhenContext): WhenResult {
  const word = words[0] ?? "";
  const time = optionalTime(words, 1, context.defaultTime);
  if ("problem" in time) return { outcome: "refused", ...time };
  const date = readDate(word, time.time, context);
  if (date === undefined) return { outcome: "refused", problem: "no_such_date", word };
  if (atTime(date, time.time, context.zone) <= context.nowMs) {
    return { outcome: "refused", problem: "past", word };
  }
  return {
    outcome: "parsed",
    recurrence: { kind: "once", date, time: time.time },
    words: time.words,
  };
}

/**
 * The day a date word names, or undefined when there is no such day. `24/12` without a
 * year is its next occurrence: this year's if its time is still to come, else next year's.
 */
function readDate(word: string, time: string, context: WhenContext): Day | undefined {
  if (ISO_DATE.test(word)) {
    const [year, month, day] = word.split("-").map(Number);
    return parseDay(`${pad(year ?? 0, 4)}-${pad(month ?? 0)}-${pad(day ?? 0)}`);
  }
  const match = SLASH_DATE.exec(word);
  if (!match) return undefined;
  const [day, month] = [Number(match[1]), Number(match[2])];
  if (match[3] !== undefined) return parseDay(`${match[3]}-${pad(month)}-${pad(day)}`);
  const thisYear = Number(dayOf(context.nowMs, context.zone).slice(0, 4));
  for (const year of [thisYear, thisYear + 1, thisYear + 2, thisYear + 3, thisYear + 4]) {
    const date = parseDay(`${pad(year, 4)}-${pad(month)}-${pad(day)}`);
    // 29/02 waits for the next leap year; 31/04 never comes.
    if (date !== undefined && atTime(date, time, context.zone) > context.nowMs) return date;
  }
  return undefined;
}

function wordOf(word: string | undefined): { word?: string } {
  return word === undefined ? {} : { word };
}

/** A run of a schedule: its stable key (local `YYYYMMDDHHMM`) and its instant. */
export interface RunTime {
  key: string;
  atMs: number;
}

function runKey(day: Day, time: string): string {
  return `${day.replaceAll("-", "")}${time.replace(":", "")}`;
}

function runOn(day: Day, time: string, zone: string): RunTime {
  return { key: runKey(day, time), atMs: atTime(day, time, zone) };
}

/** Days in a month (1-12) of a year. */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** ISO day of the week of a calendar day: 1 Monday … 7 Sunday. */
function weekdayOf(day: Day): number {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  const weekday = new Date(Date.UTC(year, month - 1, date)).getUTCDay();
  return weekday === 0 ? 7 : weekday;
}

/** Months searched ahead for a monthly run, weeks for a weekly one: far more than needed. */
const SEARCH_LIMIT = 60;

/**
 * The first `count` runs of `recurrence` strictly after `afterMs`, in order (fewer when it
 * has fewer left: a one-off has one). A monthly day past a month's end is its last day
 * (the 31st in February is the 28th or 29th).
 */
export function runsAfter(
  recurrence: Recurrence,
  zone: string,
  afterMs: number,
  count: number,
): RunTime[] {
  const runs: RunTime[] = [];
  if (count <= 0) return runs;
  if (recurrence.kind === "once") {
    const run = runOn(recurrence.date, recurrence.time, zone);
    return run.atMs > afterMs ? [run] : [];
  }
  // From the day before `afterMs` in the zone: a run late that day may still be after it.
  const start = dayOf(afterMs - 86_400_000, zone);
  if (recurrence.kind === "weekly") {
    let day = start;
    while (weekdayOf(day) !== recurrence.weekday) day = nextDay(day);
    for (let week = 0; week < SEARCH_LIMIT && runs.length < count; week++) {
      const run = runOn(day, recurrence.time, zone);
      if (run.atMs > afterMs) runs.push(run);
      for (let step = 0; step < 7; step++) day = nextDay(day);
    }
    return runs;
  }
  let [year = 1970, month = 1] = start.split("-").map(Number);
  for (let step = 0; step < SEARCH_LIMIT && runs.length < count; step++) {
    const last = daysInMonth(year, month);
    const date = recurrence.day === "last" ? last : Math.min(recurrence.day, last);
    const run = runOn(`${pad(year, 4)}-${pad(month)}-${pad(date)}`, recurrence.time, zone);
    if (run.atMs > afterMs) runs.push(run);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return runs;
}

/** The first run strictly after `afterMs`, or undefined when none is left. */
export function nextRunAfter(
  recurrence: Recurrence,
  zone: string,
  afterMs: number,
): RunTime | undefined {
  return runsAfter(recurrence, zone, afterMs, 1)[0];
}
