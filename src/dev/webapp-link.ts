/**
 * The Mini App on one machine: `npm run demo` and `npm run emulator` build the page and
 * print an address that opens it in a browser as the chat's user, its init data signed
 * with the emulator's bot token as Telegram would sign it. Loopback http is fine here;
 * Telegram itself opens only https (WEBAPP_URL).
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWebPage } from "../../web/build.js";
import { DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS } from "../config/webapp.js";
import { signWebAppInitData, webAppLaunchUrl } from "./telegram-emulator/index.js";

/** Builds the page into a fresh temporary folder; answers the folder. */
export async function buildDevWebPage(): Promise<string> {
  return buildWebPage(await mkdtemp(join(tmpdir(), "payout-bot-webapp-")));
}

/** The lines that tell the person how to open the Mini App as `user`. */
export function miniAppLines(
  appUrl: string,
  token: string,
  user: { id: number; firstName: string; languageCode?: string },
): string[] {
  const link = webAppLaunchUrl(appUrl, signWebAppInitData(token, user));
  const minutes = DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS / 60;
  return [
    `Mini App (the dashboard), as ${user.firstName} (id ${user.id}), valid ${minutes} minutes; open in a browser:`,
    `  ${link}`,
  ];
}
