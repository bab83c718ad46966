/**
 * /whois and /availability: read-only questions to the Payment API, through the service.
 * What /availability reads is also compared with what the bot last saw (as the watcher
 * does), so each operation shows since when it is up or down, and a change it is first to
 * see is alerted like any other.
 */
import type { Composer } from "telegraf";
import { formatPhone, parsePhone } from "../../model/phone.js";
import { PaymentApiError } from "../../payments/errors.js";
import type { Lookups } from "../../payouts/lookups.js";
import { recordAvailability } from "../../payouts/loops/report-loops.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { replyHtml, replyView } from "../telegram/reply.js";
import { apiTroubleText, operatorName } from "../views/common.js";
import { cannotPayText, phoneProblemText } from "../views/pay.js";
import { availabilityView } from "../views/reports.js";
import { commandPayload } from "./shared/command-args.js";

export interface LookupDeps {
  lookups: Lookups;
  stores: Stores;
  now: () => number;
  onNoticeQueued: () => void;
}

export function lookupFeature(deps: LookupDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("whois", async (ctx) => {
    if (!may(ctx.staff, "pay")) {
      await replyHtml(ctx, cannotPayText(ctx.t, ctx.staff?.role ?? "viewer"));
      return;
    }
    const input = commandPayload(ctx.message.text);
    if (input === "") {
      await replyHtml(ctx, ctx.t("usage.whois"));
      return;
    }
    const phone = parsePhone(input);
    if (!phone.ok) {
      await replyHtml(
        ctx,
        `${phoneProblemText(ctx.t, phone.problem, phone.operator)}\n${ctx.t("usage.whois")}`,
      );
      return;
    }
    try {
      const info = await deps.lookups.whois(phone.phone);
      await replyHtml(
        ctx,
        ctx.t("whois.found", {
          name: `${info.firstName} ${info.lastName}`.trim(),
          phone: formatPhone(phone.phone),
          operator: operatorName(phone.operator),
        }),
      );
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        await replyHtml(ctx, ctx.t("error.no_account", { phone: formatPhone(phone.phone) }));
        return;
      }
      ctx.log.warn({ err: error }, "whois failed");
      await replyHtml(ctx, apiTroubleText(ctx.t, error));
    }
  });

  composer.command("availability", async (ctx) => {
    let entries: Awaited<ReturnType<Lookups["availability"]>>;
    try {
      entries = await deps.lookups.availability({ fresh: true });
    } catch (error) {
      ctx.log.warn({ err: error }, "availability failed");
      await replyHtml(ctx, apiTroubleText(ctx.t, error));
      return;
    }
    const { stores, now, onNoticeQueued } = deps;
    const { states } = await recordAvailability(
      { reports: stores.reports, logger: ctx.log, now, onQueued: onNoticeQueued },
      entries,
    );
    await replyView(ctx, availabilityView(ctx.t, entries, states));
  });

  return composer;
}
