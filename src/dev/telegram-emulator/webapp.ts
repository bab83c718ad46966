/**
 * Mini Apps on the emulator. Telegram opens a Mini App with its launch parameters in the
 * URL's fragment: `tgWebAppData` (the init data, signed with a key derived from the bot
 * token, Telegram's published rule: here `@telegram-apps/init-data-node`'s `sign`, the
 * same library the bot checks it with), `tgWebAppThemeParams` (the app's colours),
 * `tgWebAppVersion` and `tgWebAppPlatform`. `webAppLaunchUrl` builds that URL, so the page
 * opens in any browser as the chat's user. Also the menu buttons (`setChatMenuButton`).
 * Which pages a Mini App may open: webapp-url.ts.
 */
import { sign } from "@telegram-apps/init-data-node";
import { z } from "zod";
import type { EmulatorCore } from "./core.js";
import type { MethodContext, MethodHandler } from "./methods.js";
import { parseParams } from "./params.js";
import { badRequest } from "./types.js";
import { webAppUrlAccepted } from "./webapp-url.js";

/** Telegram Desktop's and the web client's day colours. */
export const LIGHT_THEME: Readonly<Record<string, string>> = {
  bg_color: "#ffffff",
  text_color: "#000000",
  hint_color: "#707579",
  link_color: "#3390ec",
  button_color: "#3390ec",
  button_text_color: "#ffffff",
  secondary_bg_color: "#f4f4f5",
  destructive_text_color: "#e53935",
};

/** Their night colours. */
export const DARK_THEME: Readonly<Record<string, string>> = {
  bg_color: "#212121",
  text_color: "#ffffff",
  hint_color: "#aaaaaa",
  link_color: "#8774e1",
  button_color: "#8774e1",
  button_text_color: "#ffffff",
  secondary_bg_color: "#181818",
  destructive_text_color: "#ff595a",
};

export interface WebAppUser {
  id: number;
  firstName: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
}

/** Init data for `user`, signed with `token` as Telegram signs it, dated `authDate`. */
export function signWebAppInitData(token: string, user: WebAppUser, authDate = new Date()): string {
  return sign(
    {
      query_id: `AAE${user.id.toString(36)}${Date.now().toString(36)}`,
      user: {
        id: user.id,
        first_name: user.firstName,
        ...(user.lastName ? { last_name: user.lastName } : {}),
        ...(user.username ? { username: user.username } : {}),
        ...(user.languageCode ? { language_code: user.languageCode } : {}),
        allows_write_to_pm: true,
      },
    },
    token,
    authDate,
  );
}

/** The address Telegram would open: `appUrl` with the launch parameters in its fragment. */
export function webAppLaunchUrl(
  appUrl: string,
  initData: string,
  theme: Readonly<Record<string, string>> = LIGHT_THEME,
): string {
  const params = new URLSearchParams({
    tgWebAppData: initData,
    tgWebAppVersion: "8.0",
    tgWebAppPlatform: "web",
    tgWebAppThemeParams: JSON.stringify(theme),
  });
  return `${appUrl.split("#")[0]}#${params.toString()}`;
}

const MenuButtonSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("default") }),
  z.looseObject({ type: z.literal("commands") }),
  z.looseObject({
    type: z.literal("web_app"),
    text: z.string().min(1).max(64),
    web_app: z.looseObject({ url: z.string().url() }),
  }),
]);
export type MenuButton = z.infer<typeof MenuButtonSchema>;

const json = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" ? JSON.parse(value) : value), schema);

const SetChatMenuButtonParams = z.looseObject({
  chat_id: z
    .preprocess((value) => (typeof value === "string" ? Number(value) : value), z.number().int())
    .optional(),
  menu_button: json(MenuButtonSchema).optional(),
});

const menus = new WeakMap<EmulatorCore, Map<number, MenuButton>>();

function menusOf(core: EmulatorCore): Map<number, MenuButton> {
  let found = menus.get(core);
  if (!found) {
    found = new Map();
    menus.set(core, found);
  }
  return found;
}

/** The menu button of `chatId` (0: the bot's default), or the default one. */
export function menuButtonOf(core: EmulatorCore, chatId: number): MenuButton {
  return menusOf(core).get(chatId) ?? menusOf(core).get(0) ?? { type: "default" };
}

function setChatMenuButton({ core, request }: MethodContext) {
  const params = parseParams(SetChatMenuButtonParams, request.params);
  const button = params.menu_button ?? { type: "default" };
  if (button.type === "web_app" && !webAppUrlAccepted(button.web_app.url)) {
    // Telegram opens Mini Apps over https only (loopback http aside: webapp-url.ts).
    throw badRequest("BUTTON_URL_INVALID");
  }
  menusOf(core).set(params.chat_id ?? 0, button);
  return true;
}

function getChatMenuButton({ core, request }: MethodContext) {
  const params = parseParams(SetChatMenuButtonParams, request.params);
  return menuButtonOf(core, params.chat_id ?? 0);
}

export const WEBAPP_METHODS: Readonly<Record<string, MethodHandler>> = {
  setChatMenuButton,
  getChatMenuButton,
};
