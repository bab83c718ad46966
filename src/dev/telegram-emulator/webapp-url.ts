/**
 * Which pages the emulator opens as Mini Apps (`web_app` buttons, menu buttons). Telegram
 * opens Mini Apps over https only, except in its test environment, which also takes http
 * links. The emulator takes http for a loopback host only (127.0.0.1, localhost, [::1]: a
 * page on this machine, as in `npm run demo`); any other http page is refused, with
 * Telegram's own BUTTON_URL_INVALID.
 */

import { isWebAppUrlAllowed } from "../../config/webapp.js";

/** True when the emulator opens a Mini App at `url`: https, or http on a loopback host (the bot's own rule). */
export function webAppUrlAccepted(url: string): boolean {
  return isWebAppUrlAllowed(url);
}
