/**
 * The Mini App's variables (read by config/index.ts).
 *
 * - WEBAPP_URL: the page's public address, https (Telegram opens only https Mini Apps),
 *   normally this server's `/app/` behind the TLS proxy: `https://pay.example.com/app/`.
 *   Unset: `/dashboard` and the menu button say how to set it up; the page is still served
 *   under `/app/` (the local emulator opens it over loopback http).
 * - WEBAPP_AUTH_MAX_AGE_SECONDS: how old the init data Telegram signed may be (60-86400,
 *   default 3600).
 */
import { textOf } from "./env-values.js";

export const DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS = 3600;

export interface WebAppConfig {
  /** Undefined: the Mini App is not offered in chat. */
  url: string | undefined;
  authMaxAgeSeconds: number;
}

/** WEBAPP_URL and WEBAPP_AUTH_MAX_AGE_SECONDS; every problem is pushed to `problems`. */
export function webAppConfig(env: NodeJS.ProcessEnv, problems: string[]): WebAppConfig {
  const url = textOf(env.WEBAPP_URL);
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      problems.push("WEBAPP_URL: is not a URL; e.g. https://pay.example.com/app/");
    }
    if (parsed && parsed.protocol !== "https:") {
      problems.push(
        "WEBAPP_URL: must start with https:// (Telegram opens Mini Apps over https only)",
      );
    }
  }
  const ageText = textOf(env.WEBAPP_AUTH_MAX_AGE_SECONDS);
  let authMaxAgeSeconds = DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS;
  if (ageText !== undefined) {
    const age = Number(ageText);
    if (!/^\d+$/.test(ageText) || age < 60 || age > 86_400) {
      problems.push("WEBAPP_AUTH_MAX_AGE_SECONDS: a whole number of seconds from 60 to 86400");
    } else {
      authMaxAgeSeconds = age;
    }
  }
  return { url, authMaxAgeSeconds };
}
