/** /start, /help and /lang, and the answer to anything the bot does not understand. */
import type { Composer } from "telegraf";
import { type MessageKey, translator } from "../../i18n.js";
import { isLocale } from "../../model/locale.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { replyHtml } from "../telegram/reply.js";
import { commandPayload } from "./shared/command-args.js";

/** Help sections, each shown to the roles that may use its commands. */
const SECTIONS: ReadonlyArray<{ key: MessageKey; shown: (ctx: BotContext) => boolean }> = [
  { key: "help.pay", shown: (ctx) => may(ctx.staff, "pay") },
  { key: "help.recipients", shown: (ctx) => may(ctx.staff, "pay") },
  { key: "help.recipients_read", shown: (ctx) => !may(ctx.staff, "pay") && may(ctx.staff, "read") },
  { key: "help.schedule", shown: (ctx) => may(ctx.staff, "pay") },
  { key: "help.read", shown: (ctx) => may(ctx.staff, "read") },
  { key: "help.dashboard", shown: (ctx) => may(ctx.staff, "read") },
  { key: "help.pin", shown: (ctx) => may(ctx.staff, "pay") || may(ctx.staff, "approve") },
  { key: "help.approve", shown: (ctx) => may(ctx.staff, "approve") },
  { key: "help.admin", shown: (ctx) => may(ctx.staff, "resolve") },
  { key: "help.pin_admin", shown: (ctx) => may(ctx.staff, "manage_staff") },
  { key: "help.reports", shown: (ctx) => may(ctx.staff, "export") },
  { key: "help.audit", shown: (ctx) => may(ctx.staff, "audit") },
  { key: "help.general", shown: () => true },
  // Only those who start payouts are told when one completes; a viewer never is.
  { key: "help.notices", shown: (ctx) => may(ctx.staff, "pay") },
];

export interface HelpDeps {
  payouts: Pick<Payouts, "sessions">;
  /** Whether `userId` works for more than one merchant (MERCHANTS_FILE); default: never. */
  worksForSeveral?: (userId: number) => Promise<boolean>;
}

async function helpText(ctx: BotContext, deps: HelpDeps): Promise<string> {
  const role = ctx.staff?.role ?? "viewer";
  const lines = [ctx.t("help.title", { role: ctx.t(`role.${role}`) })];
  for (const section of SECTIONS) {
    // /merchant is only worth a line to someone who has a choice to make.
    if (section.key === "help.general" && ctx.from && (await deps.worksForSeveral?.(ctx.from.id))) {
      lines.push("", ctx.t("help.merchant"));
    }
    if (section.shown(ctx)) lines.push("", ctx.t(section.key));
  }
  return lines.join("\n");
}

export function helpFeature(deps: HelpDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.start(async (ctx) => replyHtml(ctx, await helpText(ctx, deps)));
  composer.help(async (ctx) => replyHtml(ctx, await helpText(ctx, deps)));

  composer.command("lang", async (ctx) => {
    const wanted = commandPayload(ctx.message.text).toLowerCase();
    if (!isLocale(wanted)) {
      await replyHtml(ctx, ctx.t("lang.usage"));
      return;
    }
    await deps.payouts.sessions.chooseLanguage(ctx.from.id, wanted);
    ctx.locale = wanted;
    ctx.t = translator(wanted, ctx.t.timeZone);
    await replyHtml(ctx, ctx.t("lang.changed"));
  });

  return composer;
}

/** Last in the chain: unknown commands and stray text. */
export function fallbackFeature(): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.on("message", (ctx) => replyHtml(ctx, ctx.t("fallback.unknown")));
  composer.on("callback_query", (ctx) => ctx.answerCbQuery(ctx.t.plain("confirm.gone")));
  return composer;
}
