/**
 * Translations. Every user-facing text lives in locales/en.json and locales/fr.json (the
 * same keys, checked by a test); templates are HTML with `{name}` placeholders. Values
 * are HTML-escaped when they are put in, unless wrapped with `html()` (already-safe markup
 * built from other translations).
 *
 * A count that a word depends on is chosen by rule, ICU-style:
 * `{rows, plural, one {# ligne} other {# lignes}}`. The form is picked by `Intl.PluralRules`
 * for the language (French reads 0 and 1 as singular, English only 1), `#` is the number
 * grouped as the language groups digits, and a form holds text and markup but no other
 * placeholder. The value must be a number; anything else takes the `other` form as it is.
 */
import en from "../locales/en.json" with { type: "json" };
import fr from "../locales/fr.json" with { type: "json" };
import type { Locale } from "./model/locale.js";
import { formatCount } from "./model/money.js";
import { DEFAULT_TIME_ZONE, timeFormatter, zoneInWords } from "./time.js";

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
  /** An instant (Unix ms) as the reader reads it: "15 Jan, 12:00 UTC+1", "15 janv. à 12:00". */
  time(ms: number): string;
  readonly locale: Locale;
  /** The IANA time zone `time` shows. */
  readonly timeZone: string;
  /** That zone said in words, for the one place a message names it: "heure du Cameroun (UTC+1)". */
  readonly zoneName: string;
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

/** `{name, plural, one {…} other {…}}`: the forms hold no braces (see the file comment). */
const PLURAL = /\{(\w+), plural,((?:\s*\w+ \{[^{}]*\})+)\s*\}/g;
const PLURAL_FORM = /(\w+) \{([^{}]*)\}/g;

const PLURAL_RULES: Record<Locale, Intl.PluralRules> = {
  en: new Intl.PluralRules("en"),
  fr: new Intl.PluralRules("fr"),
};

/** The form of `forms` (the inside of a plural selection) that `value` takes in `locale`. */
function pluralForm(locale: Locale, forms: string, value: Param | undefined): string | undefined {
  const byCategory = new Map<string, string>();
  for (const [, category = "", text = ""] of forms.matchAll(PLURAL_FORM)) {
    byCategory.set(category, text);
  }
  if (value === undefined) return undefined;
  if (typeof value !== "number") {
    const shown = value instanceof Html ? value.value : escapeHtml(value);
    return byCategory.get("other")?.replace(/#/g, shown);
  }
  const text = byCategory.get(PLURAL_RULES[locale].select(value)) ?? byCategory.get("other");
  return text?.replace(/#/g, formatCount(value, locale));
}

function render(locale: Locale, template: string, params: Params | undefined): string {
  const counted = template.replace(PLURAL, (whole, name: string, forms: string) => {
    return pluralForm(locale, forms, params?.[name]) ?? whole;
  });
  if (!params) return counted;
  return counted.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    if (value instanceof Html) return value.value;
    return escapeHtml(String(value));
  });
}

function buildTranslator(locale: Locale, timeZone: string): Translate {
  const catalog = CATALOGS[locale];
  const translate = (key: MessageKey, params?: Params) => render(locale, catalog[key], params);
  return Object.assign(translate, {
    plain: (key: MessageKey, params?: Params) => stripHtml(render(locale, catalog[key], params)),
    time: timeFormatter(locale, timeZone),
    locale,
    timeZone,
    zoneName: zoneInWords(locale, timeZone),
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

/** Both catalogs, for the tests that read every text. */
export function allCatalogs(): Readonly<Record<Locale, Record<string, string>>> {
  return CATALOGS;
}
