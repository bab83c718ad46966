/** The languages the bot speaks: Cameroon's two official ones. */
import { z } from "zod";

export const LOCALES = ["en", "fr"] as const;
export const LocaleSchema = z.enum(LOCALES);
export type Locale = z.infer<typeof LocaleSchema>;

export function isLocale(value: string): value is Locale {
  return (LOCALES as readonly string[]).includes(value);
}

/** French for a Telegram `language_code` starting with "fr", English otherwise. */
export function localeFromLanguageCode(code: string | undefined): Locale {
  return code?.toLowerCase().startsWith("fr") ? "fr" : "en";
}
