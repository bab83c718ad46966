/**
 * /dashboard: a button that opens the Mini App (WEBAPP_URL) in Telegram, and the chat's
 * menu button set to it for the person asking; without WEBAPP_URL, how to set it up.
 * `setStaffMenuButtons` gives every staff member's private chat the same menu button at
 * start. Whoever opens the page is checked again there, on every request.
 */
import { type Composer, Markup } from "telegraf";
import { translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import type { Locale } from "../../model/locale.js";
import type { BotContext } from "../context.js";
import { cosmetic } from "../telegram/failures.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { replyHtml, replyView } from "../telegram/reply.js";

export interface DashboardDeps {
  /** WEBAPP_URL; undefined: the Mini App is not offered. */
  webAppUrl: string | undefined;
}

/** The menu button of a private chat that opens the Mini App. */
export function menuButton(url: string, locale: Locale) {
  return {
    type: "web_app" as const,
    text: translator(locale).plain("dashboard.menu_button"),
    web_app: { url },
  };
}

export function dashboardFeature(deps: DashboardDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.command("dashboard", async (ctx) => {
    const url = deps.webAppUrl;
    if (url === undefined) {
      await replyHtml(ctx, ctx.t("dashboard.not_set_up"));
      return;
    }
    const chatId = ctx.chat.id;
    await cosmetic(
      "setChatMenuButton",
      () => ctx.telegram.setChatMenuButton({ chatId, menuButton: menuButton(url, ctx.locale) }),
      ctx.log,
    );
    await replyView(ctx, {
      text: ctx.t("dashboard.open"),
      keyboard: {
        inline_keyboard: [[Markup.button.webApp(ctx.t.plain("dashboard.button"), url)]],
      },
    });
  });
  return composer;
}

/**
 * Sets the Mini App as the menu button of each staff member's private chat (their id is
 * that chat's id). Best effort: someone who never started the bot has no chat yet, and
 * /dashboard sets it again.
 */
export async function setStaffMenuButtons(
  telegram: BotContext["telegram"],
  staff: ReadonlyArray<{ userId: number; locale: Locale }>,
  url: string,
  logger: Logger,
): Promise<void> {
  for (const member of staff) {
    await cosmetic(
      "setChatMenuButton",
      () =>
        telegram.setChatMenuButton({
          chatId: member.userId,
          menuButton: menuButton(url, member.locale),
        }),
      logger,
    );
  }
}
