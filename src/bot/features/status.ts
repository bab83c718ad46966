/** /status and /history: what happened to a payment, and the recent payouts. */
import type { Composer } from "telegraf";
import { PaymentApiError } from "../../payments/errors.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may, maySee } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView, replyHtml, replyView } from "../telegram/reply.js";
import { apiTroubleText, CALLBACK_PATTERN, payoutStateView } from "../views/common.js";
import { historyView, paymentView } from "../views/reports.js";
import { commandPayload } from "./shared/command-args.js";

const HISTORY_PAGE_SIZE = 8;
const REFERENCE = /^[\w-]{1,100}$/;

export function statusFeature(deps: { payouts: Payouts; stores: Stores }): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("status", async (ctx) => {
    if (!may(ctx.staff, "read")) return;
    const reference = commandPayload(ctx.message.text);
    if (!REFERENCE.test(reference)) {
      await replyHtml(ctx, ctx.t("usage.status"));
      return;
    }
    // One of our payouts first, by its reference or by the payment id the API gave it (the
    // API may have forgotten a payment we still keep); anything else is asked of the API.
    const payout =
      (await deps.stores.payouts.get(reference)) ??
      (await deps.stores.payouts.findByPaymentId(reference));
    if (payout) {
      // One of ours that this person may not see is not shown from the API either: the
      // API's answer holds the same amount and number.
      if (maySee(ctx.staff, payout)) await replyView(ctx, payoutStateView(ctx.t, payout));
      else await replyHtml(ctx, ctx.t("status.not_found", { id: reference }));
      return;
    }
    try {
      await replyView(ctx, paymentView(ctx.t, await deps.payouts.lookups.paymentStatus(reference)));
    } catch (error) {
      if (
        error instanceof PaymentApiError &&
        (error.statusCode === 404 || error.statusCode === 400)
      ) {
        await replyHtml(ctx, ctx.t("status.not_found", { id: reference }));
        return;
      }
      ctx.log.warn({ err: error }, "status look-up failed");
      await replyHtml(ctx, apiTroubleText(ctx.t, error));
    }
  });

  const historyPage = async (ctx: BotContext, page: number) => {
    const everyone = may(ctx.staff, "see_everyone");
    const result = await deps.stores.payouts.list({
      userId: everyone ? undefined : ctx.from?.id,
      offset: page * HISTORY_PAGE_SIZE,
      limit: HISTORY_PAGE_SIZE,
    });
    const names = everyone
      ? await namesOf(
          deps.stores.profiles,
          result.items.map((payout) => payout.initiatorId),
        )
      : undefined;
    return historyView(ctx.t, { ...result, page, pageSize: HISTORY_PAGE_SIZE }, everyone, names);
  };

  composer.command("history", async (ctx) => {
    if (!may(ctx.staff, "read")) return;
    await replyView(ctx, await historyPage(ctx, 0));
  });

  composer.action(CALLBACK_PATTERN.history, async (ctx) => {
    await ctx.answerCbQuery();
    await editView(ctx, await historyPage(ctx, Number(ctx.match[1])));
  });

  return composer;
}
