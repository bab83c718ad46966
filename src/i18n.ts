/**
 * Translations. Every user-facing text lives in locales/en.json and locales/fr.json (the
 * same keys, checked by a test); templates are HTML with `{name}` placeholders. Values
 * are HTML-escaped when they are put in, unless wrapped with `html()` (already-safe markup
 * built from other translations).
 */
import en from "../locales/en.json" with { type: "json" };
import fr from "../locales/fr.json" with { type: "json" };
import type { Locale } from "./model/locale.js";
import { DEFAULT_TIME_ZONE, timeFormatter } from "./time.js";

export type MessageKey = keyof typeof en;

const CATALOGS: Record<Locale, Record<MessageKey, string>> = { en, fr };

/** Markup that is already safe HTML and must not be escaped again. */
export class Html {
  constructor(readonly value: string) {}
}

export function html(value: string): Html {
  return new Html(value);
}

export type Param = string | number | Html;
export type Params = Record<string, Param>;

export interface Translate {
  (key: MessageKey, params?: Params): string;
  /** The same text without HTML (callback query answers are plain text). */
  plain(key: MessageKey, params?: Params): string;
  /** An instant (Unix ms) as the reader reads it: "15 Jan, 12:00 UTC+1". */
  time(ms: number): string;
  readonly locale: Locale;
  /** The IANA time zone `time` shows. */
  readonly timeZone: string;
}

/** Escapes the three characters Telegram's HTML parse mode reads (and quotes, for attributes). */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** Turns our HTML back into text: tags dropped, entities read. */
export function stripHtml(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

function render(template: string, params: Params | undefined): string {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    if (value instanceof Html) return value.value;
    return escapeHtml(String(value));
  });
}

function buildTranslator(locale: Locale, timeZone: string): Translate {
  const catalog = CATALOGS[locale];
  const translate = (key: MessageKey, params?: Params) => render(catalog[key], params);
  return Object.assign(translate, {
    plain: (key: MessageKey, params?: Params) => stripHtml(render(catalog[key], params)),
    time: timeFormatter(locale, timeZone),
    locale,
    timeZone,
  });
}

// Built once per language and zone: the access middleware asks for one on every update.
const TRANSLATORS = new Map<string, Translate>();

/**
 * The `t()` of a locale, showing times in `timeZone` (an IANA name, checked by the
 * configuration; default Africa/Douala). The same object on every call.
 */
export function translator(locale: Locale, timeZone = DEFAULT_TIME_ZONE): Translate {
  const key = `${locale} ${timeZone}`;
  let t = TRANSLATORS.get(key);
  if (!t) {
    t = buildTranslator(locale, timeZone);
    TRANSLATORS.set(key, t);
  }
  return t;
}

/** French for a Telegram `language_code` starting with "fr", English otherwise. */
export function allCatalogs(): Readonly<Record<Locale, Record<string, string>>> {
  return CATALOGS;
}
