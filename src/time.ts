/**
 * Times as users read them: day, month and time of day in the merchant's time zone
 * (`TIME_ZONE`), with the zone's UTC offset, so that nobody has to guess whose clock it is:
 * "15 Jan, 12:00 UTC+1", "15 janv., 12:00 UTC+1". The offset reads the same in English and
 * French, where zone abbreviations do not (WAT, GMT+1, UTC+1 depending on the language).
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

// Building an Intl.DateTimeFormat costs far more than using one: one per language and zone.
const FORMATTERS = new Map<string, FormatTime>();

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

function buildFormatter(locale: Locale, zone: string): FormatTime {
  const format = new Intl.DateTimeFormat(LANGUAGE_TAGS[locale], {
    timeZone: zone,
    day: "2-digit",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "shortOffset",
  });
  return (ms) => {
    let text = "";
    let offset = "";
    for (const part of format.formatToParts(new Date(ms))) {
      if (part.type === "timeZoneName") offset = utcOffset(part.value);
      else text += part.value;
    }
    return `${text.trim()} ${offset}`;
  };
}

/**
 * The time formatter for `locale` in `zone` (an IANA name; see `canonicalTimeZone`), built
 * once and shared.
 */
export function timeFormatter(locale: Locale, zone: string): FormatTime {
  const key = `${locale} ${zone}`;
  let formatter = FORMATTERS.get(key);
  if (!formatter) {
    formatter = buildFormatter(locale, zone);
    FORMATTERS.set(key, formatter);
  }
  return formatter;
}
