/**
 * /events (admins): the signed events' endpoint, its state, deliveries in the last 24 h,
 * the oldest waiting event and the last failed tries; `/events pause` and `resume`;
 * `/events replay FROM [TO]` (days, YYYY-MM-DD in TIME_ZONE) queues that period's events
 * again with the ids they had. Every change is audited by the domain step.
 */
import type { Composer } from "telegraf";
import { staffActor } from "../../model/audit.js";
import type { EventDispatch } from "../../payouts/loops/events.js";
import { REPLAY_MAX_ENTRIES } from "../../payouts/loops/events.js";
import { may } from "../../payouts/policy.js";
import { dayOf, daysWindow } from "../../time.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { replyHtml, replyView } from "../telegram/reply.js";
import { eventsStatusView } from "../views/events.js";
import { commandPayload } from "./shared/command-args.js";
import { parseExportArgs, periodText } from "./shared/export-args.js";

export interface EventsDeps {
  /** Undefined when EVENTS_URL and EVENTS_SECRET are unset. */
  events: EventDispatch | undefined;
  now: () => number;
}

export function eventsFeature(deps: EventsDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("events", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null || !may(staff, "manage_events")) {
      await replyHtml(ctx, ctx.t("access.admin_only"));
      return;
    }
    const events = deps.events;
    if (!events) {
      await replyHtml(ctx, ctx.t("events.off"));
      return;
    }
    const [verb = "", ...rest] = commandPayload(ctx.message.text).split(/\s+/).filter(Boolean);
    const admin = staffActor(staff);
    switch (verb.toLowerCase()) {
      case "":
        await replyView(ctx, eventsStatusView(ctx.t, await events.summary()));
        return;
      case "pause":
        await events.setState("paused", admin);
        await replyHtml(ctx, ctx.t("events.paused"));
        return;
      case "resume":
        await events.setState("active", admin);
        await replyHtml(ctx, ctx.t("events.resumed"));
        return;
      case "replay":
        await replay(ctx, events, rest, admin);
        return;
      default:
        await replyHtml(ctx, ctx.t("events.usage", { zone: ctx.t.timeZone }));
    }
  });

  const replay = async (
    ctx: BotContext,
    events: EventDispatch,
    words: string[],
    admin: ReturnType<typeof staffActor>,
  ) => {
    const zone = ctx.t.timeZone;
    const args =
      words.length === 0 ? undefined : parseExportArgs(words.join(" "), dayOf(deps.now(), zone));
    if (!args || (args.ok && args.what !== "payouts")) {
      await replyHtml(ctx, ctx.t("events.usage", { zone }));
      return;
    }
    if (!args.ok) {
      if (args.problem === "date")
        await replyHtml(ctx, ctx.t("events.replay_date", { text: args.text }));
      else if (args.problem === "order") await replyHtml(ctx, ctx.t("events.replay_order"));
      else await replyHtml(ctx, ctx.t("events.usage", { zone }));
      return;
    }
    const { fromMs, toMs } = daysWindow(args.from, args.to, zone);
    const result = await events.replay(fromMs, toMs, admin);
    if (result.outcome === "bad_period") {
      await replyHtml(ctx, ctx.t("events.replay_order"));
      return;
    }
    const lines = [
      ctx.t("events.replayed", {
        queued: result.queued,
        found: result.found,
        period: periodText(args.from, args.to),
      }),
    ];
    if (result.truncated) {
      lines.push(ctx.t("events.replay_truncated", { max: REPLAY_MAX_ENTRIES }));
    }
    await replyHtml(ctx, lines.join("\n"));
  };

  return composer;
}
