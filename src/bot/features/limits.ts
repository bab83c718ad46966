/**
 * /limits: today's spending caps (PAYER_DAILY_LIMIT_XAF, MERCHANT_DAILY_LIMIT_XAF), what
 * the asker and everyone used and have left, and for those who may see everyone's
 * spending, what each payer used.
 */
import type { Composer } from "telegraf";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { replyView } from "../telegram/reply.js";
import { limitsView } from "../views/limits.js";

export function limitsFeature(deps: { payouts: Payouts; stores: Stores }): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("limits", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null || !may(staff, "read")) return;
    const report = await deps.payouts.limits.report();
    const everyone = may(staff, "see_all_spending");
    const names = everyone
      ? await namesOf(deps.stores.profiles, [...report.byUser.keys()])
      : new Map<number, string>();
    const reader = { userId: staff.userId, pays: may(staff, "pay"), everyone };
    await replyView(ctx, limitsView(ctx.t, report, reader, names));
  });

  return composer;
}
