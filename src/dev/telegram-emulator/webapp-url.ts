/**
 * Which pages the emulator opens as Mini Apps (`web_app` buttons, menu buttons). Telegram
 * opens Mini Apps over https only, except in its test environment, which also takes http
 * links. The emulator takes http for a loopback host only (127.0.0.1, localhost, [::1]: a
 * page on this machine, as in `npm run demo`); any other http page is refused, with
 * Telegram's own BUTTON_URL_INVALID.
 */

/** Host names that only ever reach this machine. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** True when the emulator opens a Mini App at `url`: https, or http on a loopback host. */
export function webAppUrlAccepted(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "https:") return true;
  return parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname);
}
