/**
 * /pin: where a person's step-up PIN stands, and `/pin reset USER_ID` for admins, of
 * someone else's PIN only (the person sets a new one in the Mini App the next time a
 * Confirm asks for it; they and the admins are told by the outbox). The PIN itself is
 * never typed here: it is set and checked only in the Mini App.
 */
import type { Composer } from "telegraf";
import type { Payouts } from "../../payouts/payouts.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { replyHtml } from "../telegram/reply.js";
import { money, personName } from "../views/common.js";
import type { StepUpSettings } from "../views/step-up.js";
import { commandPayload } from "./shared/command-args.js";

export interface PinDeps {
  payouts: Payouts;
  stores: Stores;
  /** Undefined when STEP_UP_THRESHOLD_XAF is unset: no PIN is ever asked. */
  stepUp: StepUpSettings | undefined;
}

const USER_ID = /^\d{1,15}$/;

export function pinFeature(deps: PinDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("pin", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null) return;
    const [verb, target, ...rest] = commandPayload(ctx.message.text).split(/\s+/).filter(Boolean);
    if (verb === "reset") {
      if (target === undefined || !USER_ID.test(target) || rest.length > 0) {
        await replyHtml(ctx, ctx.t("pin.reset_usage"));
        return;
      }
      const userId = Number(target);
      const result = await deps.payouts.pins.reset(staff, userId);
      if (result.outcome === "forbidden") {
        await replyHtml(ctx, ctx.t("pin.reset_forbidden"));
        return;
      }
      ctx.log.info({ userId, outcome: result.outcome }, "pin reset asked");
      if (result.outcome === "own") {
        await replyHtml(ctx, ctx.t("pin.reset_own", { id: userId }));
        return;
      }
      const names = await namesOf(deps.stores.profiles, [userId]);
      const name = personName(ctx.t, names, userId);
      if (result.outcome === "none") {
        await replyHtml(ctx, ctx.t("pin.reset_none", { name }));
        return;
      }
      const status = await deps.payouts.pins.status(userId);
      const kept =
        status.kind === "locked"
          ? `\n${ctx.t("pin.reset_lock_kept", { until: ctx.t.time(status.untilMs) })}`
          : "";
      await replyHtml(ctx, `${ctx.t("pin.reset_done", { name })}${kept}`);
      return;
    }
    if (deps.stepUp === undefined) {
      await replyHtml(ctx, ctx.t("pin.off"));
      return;
    }
    const status = await deps.payouts.pins.status(staff.userId);
    const line =
      status.kind === "locked"
        ? ctx.t("pin.status_locked", { until: ctx.t.time(status.untilMs) })
        : ctx.t(status.kind === "set" ? "pin.status_set" : "pin.status_none");
    const usage = ctx.t("pin.usage", { threshold: money(ctx.t, deps.stepUp.thresholdXaf) });
    await replyHtml(ctx, `${line}\n\n${usage}`);
  });

  return composer;
}
