/** /whois and /availability: read-only questions to the Payment API, through the service. */
import { Composer } from "telegraf";
import { PaymentApiError } from "../../payments/errors.js";
import { formatPhone, parsePhone } from "../../payments/phone.js";
import type { PayoutService } from "../../payouts/service.js";
import { commandPayload } from "../command-args.js";
import { type BotContext, can } from "../context.js";
import { replyView } from "../reply.js";
import { availabilityView } from "../report-views.js";
import { cannotPayText, operatorName, phoneProblemText } from "../views.js";

export function lookupFeature(deps: { service: PayoutService }): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command("whois", async (ctx) => {
    if (!can(ctx.staff, "pay")) {
      await ctx.reply(cannotPayText(ctx.t, ctx.staff?.role ?? "viewer"), { parse_mode: "HTML" });
      return;
    }
    const input = commandPayload(ctx.message.text);
    if (input === "") {
      await ctx.reply(ctx.t("usage.whois"), { parse_mode: "HTML" });
      return;
    }
    const phone = parsePhone(input);
    if (!phone.ok) {
      await ctx.reply(
        `${phoneProblemText(ctx.t, phone.problem, phone.operator)}\n${ctx.t("usage.whois")}`,
        {
          parse_mode: "HTML",
        },
      );
      return;
    }
    try {
      const info = await deps.service.whois(phone.phone);
      await ctx.reply(
        ctx.t("whois.found", {
          name: `${info.firstName} ${info.lastName}`.trim(),
          phone: formatPhone(phone.phone),
          operator: operatorName(phone.operator),
        }),
        { parse_mode: "HTML" },
      );
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        await ctx.reply(ctx.t("error.no_account", { phone: formatPhone(phone.phone) }), {
          parse_mode: "HTML",
        });
        return;
      }
      ctx.log.warn({ err: error }, "whois failed");
      await ctx.reply(ctx.t("error.api_unreachable"), { parse_mode: "HTML" });
    }
  });

  composer.command("availability", async (ctx) => {
    try {
      await replyView(ctx, availabilityView(ctx.t, await deps.service.availability()));
    } catch (error) {
      ctx.log.warn({ err: error }, "availability failed");
      await ctx.reply(ctx.t("error.api_unreachable"), { parse_mode: "HTML" });
    }
  });

  return composer;
}
