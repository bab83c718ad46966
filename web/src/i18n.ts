/**
 * The page's texts (locales/webapp.*.json), filled as the bot fills its own: `{name}`
 * placeholders and ICU-style plurals (`{n, plural, one {# x} other {# y}}`), `#` the count
 * grouped as the language groups digits. Amounts as the bot writes them: `5,000 FCFA`,
 * `5 000 FCFA` (U+202F between groups, U+00A0 before FCFA).
 */
import en from "../../locales/webapp.en.json";
import fr from "../../locales/webapp.fr.json";

export type Lang = "en" | "fr";
export type Key = keyof typeof en;
type Params = Record<string, string | number>;

const CATALOGS: Record<Lang, Record<Key, string>> = { en, fr };
const PLURAL = /\{(\w+), plural,((?:\s*\w+ \{[^{}]*\})+)\s*\}/g;

let lang: Lang = "en";

export function setLang(next: Lang): void {
  lang = next;
  document.documentElement.lang = next;
}

export function currentLang(): Lang {
  return lang;
}

export function count(value: number): string {
  const parts = new Intl.NumberFormat(lang === "fr" ? "fr-FR" : "en-US", {
    maximumFractionDigits: 0,
  }).formatToParts(value);
  return parts
    .map((part) => (part.type === "group" ? (lang === "fr" ? "\u202F" : ",") : part.value))
    .join("");
}

export function money(amount: number): string {
  return `${count(amount)}${lang === "fr" ? "\u00A0" : " "}FCFA`;
}

export function t(key: Key, params: Params = {}): string {
  const template = CATALOGS[lang][key];
  const rules = new Intl.PluralRules(lang);
  const counted = template.replace(PLURAL, (_all, name: string, options: string) => {
    const value = Number(params[name] ?? 0);
    const choices = new Map(
      [...options.matchAll(/(\w+) \{([^{}]*)\}/g)].map((match) => [match[1], match[2] ?? ""]),
    );
    const chosen = choices.get(rules.select(value)) ?? choices.get("other") ?? "";
    return chosen.replace(/#/g, count(value));
  });
  return counted.replace(/\{(\w+)\}/g, (all, name: string) =>
    params[name] === undefined ? all : String(params[name]),
  );
}

/** A date and time in the reader's language (the device's zone). */
export function when(ms: number): string {
  return new Intl.DateTimeFormat(lang === "fr" ? "fr-FR" : "en-GB", {
    dateStyle: "medium",
    timeStyle: "short",
  }).format(ms);
}

/** `2026-11-25` → `25 Nov` / `25 nov.` */
export function shortDay(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(lang === "fr" ? "fr-FR" : "en-GB", {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  }).format(Date.UTC(y ?? 2000, (m ?? 1) - 1, d ?? 1));
}

/** `237670000001` → `+237 670 00 00 01` */
export function phone(text: string): string {
  const m = /^237(\d)(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  return m ? `+237 ${m[1]}${m[2]} ${m[3]} ${m[4]} ${m[5]}` : text;
}

/** 0.975 → `97.5%` / `97,5 %` */
export function percent(ratio: number): string {
  const text = new Intl.NumberFormat(lang === "fr" ? "fr-FR" : "en-US", {
    style: "percent",
    maximumFractionDigits: 1,
  }).format(ratio);
  return lang === "fr" ? text.replace(/\s%/, "\u202F%") : text;
}

/** A time of day, `14:05`, in the reader's language (the device's zone). */
export function clock(ms: number): string {
  return new Intl.DateTimeFormat(lang === "fr" ? "fr-FR" : "en-GB", {
    hour: "2-digit",
    minute: "2-digit",
  }).format(ms);
}

/** A day's title in a list: `Friday 28 November` / `vendredi 28 novembre` (the device's zone). */
export function dayTitle(ms: number): string {
  return new Intl.DateTimeFormat(lang === "fr" ? "fr-FR" : "en-GB", {
    weekday: "long",
    day: "numeric",
    month: "long",
  }).format(ms);
}
