/**
 * A real browser for the Mini App's tests: Debian's Chromium (`/usr/bin/chromium`, or
 * CHROMIUM_PATH), driven by playwright-core, headless. `.ci/run` installs it when missing.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import {
  LIGHT_THEME,
  signWebAppInitData,
  webAppLaunchUrl,
} from "../../src/dev/telegram-emulator/index.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where screenshots go (git-ignored; CI keeps it as an artifact). */
export const ARTIFACTS_DIR = fileURLToPath(
  new URL("../../test-artifacts/webapp/", import.meta.url),
);

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

export interface MiniAppUser {
  id: number;
  firstName: string;
  languageCode?: string;
}

/** The address Telegram would open for `user`, signed with `token` at `authDate`. */
export function miniAppUrl(
  baseUrl: string,
  token: string,
  user: MiniAppUser,
  options: { authDate?: Date; theme?: Readonly<Record<string, string>> } = {},
): string {
  const initData = signWebAppInitData(token, user, options.authDate ?? new Date());
  return webAppLaunchUrl(`${baseUrl}/app/`, initData, options.theme ?? LIGHT_THEME);
}

/** The `Authorization` header the page sends for `user`. */
export function tmaHeader(token: string, user: MiniAppUser, authDate = new Date()): string {
  return `tma ${signWebAppInitData(token, user, authDate)}`;
}
