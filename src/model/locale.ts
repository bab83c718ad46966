/** The languages the bot speaks: Cameroon's two official ones. */
import { z } from "zod";

export const LOCALES = ["en", "fr"] as const;
export const LocaleSchema = z.enum(LOCALES);
export type Locale = z.infer<typeof LocaleSchema>;

export function isLocale(value: string): value is Locale {
  return (LOCALES as readonly string[]).includes(value);
}

/**
 * French for a Telegram `language_code` starting with "fr", English for "en"; otherwise
 * `fallback` (a merchant's default language; English unless set).
 */
export function localeFromLanguageCode(code: string | undefined, fallback: Locale = "en"): Locale {
  const lower = code?.toLowerCase();
  if (lower?.startsWith("fr")) return "fr";
  if (lower?.startsWith("en")) return "en";
  return fallback;
}
