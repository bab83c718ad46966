/**
 * The Mini App's variables (read by config/index.ts).
 *
 * - WEBAPP_URL: the page's public address, https (Telegram opens only https Mini Apps),
 *   normally this server's `/app/` behind the TLS proxy: `https://pay.example.com/app/`.
 *   Plain http is accepted for a loopback host only (127.0.0.1, localhost, [::1]): a page
 *   on this machine, which only the local emulator opens (as Telegram's own test
 *   environment opens http Mini Apps); never for any other host.
 *   Unset: `/dashboard` and the menu button say how to set it up; the page is still served
 *   under `/app/`.
 * - WEBAPP_AUTH_MAX_AGE_SECONDS: how old the init data Telegram signed may be to look
 *   (60-86400, default 3600); a request that changes anything takes it signed within the
 *   last 10 minutes whatever this says (http/webapp/auth.ts).
 */
import { isLoopbackHost, textOf } from "./env-values.js";

export const DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS = 3600;

/**
 * True when a Mini App may be opened at `url`: https anywhere, or http on a loopback host
 * (a page only this machine reaches, opened by the local emulator). Anything else, and
 * anything that is not a URL, is false.
 */
export function isWebAppUrlAllowed(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "https:") return true;
  return parsed.protocol === "http:" && isLoopbackHost(parsed.hostname);
}

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
    if (parsed && !isWebAppUrlAllowed(url)) {
      problems.push(
        "WEBAPP_URL: must start with https:// (Telegram opens Mini Apps over https only); http:// is accepted only for 127.0.0.1, localhost or [::1] (the local emulator)",
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
