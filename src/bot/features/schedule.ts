/**
 * /schedule and /schedules: a scheduled or recurring payout read from one line, shown with
 * its next runs and Confirm / Cancel (its owner only, expiring like /pay's); the
 * approvers' Approve / Reject; Pause, Resume and Delete in the list; a held run's Send
 * anyway / Skip and a reminder's Skip this run. Nothing here sends a payment: the scheduler
 * does, through payouts/submission.ts.
 */
import type { Composer } from "telegraf";
import { MAX_AMOUNT_XAF } from "../../model/money.js";
import type { Schedule } from "../../model/schedule.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may, needsApproval } from "../../payouts/policy.js";
import type { RunPress } from "../../payouts/schedule/runs.js";
import type { ScheduleStepResult } from "../../payouts/schedule/schedules.js";
import { parseWhen } from "../../payouts/schedule/when.js";
import type { BotContext } from "../context.js";
import { dropGoneButtons } from "../telegram/best-effort.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView, pressIsOnItsMessage, replyHtml, replyView } from "../telegram/reply.js";
import { money } from "../views/common.js";
import { cannotPayText, confirmationPrompt, prepareFailureText } from "../views/pay.js";
import {
  SCHEDULE_CALLBACK_PATTERN,
  scheduleListItem,
  schedulePrompt,
  scheduleStateView,
  scheduleUsage,
  whenProblemText,
} from "../views/schedule.js";
import { type StepUpSettings, withPinConfirm, withPinSchedule } from "../views/step-up.js";
import { commandPayload, splitPaymentArgs } from "./shared/command-args.js";
import { recipientProblemText } from "./shared/recipient-args.js";

export interface ScheduleDeps {
  payouts: Payouts;
  now: () => number;
  /** STEP_UP_THRESHOLD_XAF and the Mini App: a big schedule's Confirm opens it. */
  stepUp?: StepUpSettings | undefined;
}

/** Schedules /schedules shows, newest first. */
const LIST_LIMIT = 10;

export function scheduleFeature(deps: ScheduleDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  const schedules = deps.payouts.schedules;
  const { timeZone, defaultTime, approvalThresholdXaf } = schedules.settings;
  const nextRuns = (schedule: Schedule) =>
    schedule.state === "active" && schedule.nextRunAtMs !== undefined
      ? [
          { atMs: schedule.nextRunAtMs },
          ...schedules.nextRuns(schedule.recurrence, 2, schedule.nextRunAtMs),
        ]
      : schedules.nextRuns(schedule.recurrence, 3);

  composer.command("schedule", async (ctx) => {
    const staff = ctx.staff;
    if (!may(staff, "pay")) {
      const role = staff?.role ?? "viewer";
      const text =
        staff === null
          ? cannotPayText(ctx.t, role)
          : ctx.t("schedule.viewer_cannot", { role: ctx.t.plain(`role.${role}`) });
      await replyHtml(ctx, text);
      return;
    }
    const words = commandPayload(ctx.message.text)
      .split(/\s+/)
      .filter((word) => word !== "");
    const usage = scheduleUsage(ctx.t, defaultTime);
    if (words.length === 0 || staff === null) {
      await replyHtml(ctx, usage);
      return;
    }
    const when = parseWhen(words, { zone: timeZone, nowMs: deps.now(), defaultTime });
    if (when.outcome === "refused") {
      await replyHtml(ctx, `${whenProblemText(ctx.t, when.problem, when.word)}\n\n${usage}`);
      return;
    }
    const args = splitPaymentArgs(words.slice(when.words).join(" "));
    if (args.phone === undefined || args.amount === undefined) {
      await replyHtml(ctx, usage);
      return;
    }
    // An alias works as a number does; an unknown or malformed one is said plainly (a bad
    // number is explained by the preparation, as for /pay).
    const recipient = await deps.payouts.recipients.resolve(args.phone);
    if (
      recipient.outcome === "unknown_alias" ||
      (recipient.outcome === "invalid" && recipient.what === "alias")
    ) {
      await replyHtml(ctx, recipientProblemText(ctx.t, recipient, "pay"));
      return;
    }
    const result = await schedules.prepare({
      recurrence: when.recurrence,
      phone:
        recipient.outcome === "number" || recipient.outcome === "alias"
          ? recipient.phone
          : args.phone,
      amount: args.amount,
      note: args.note,
      ownerId: staff.userId,
      ownerRole: staff.role,
      chatId: ctx.chat.id,
      locale: ctx.locale,
    });
    if (result.outcome === "refused") {
      const text =
        result.reason === "no_runs"
          ? ctx.t("schedule.no_runs")
          : prepareFailureText(ctx.t, result, "pay", MAX_AMOUNT_XAF);
      await replyHtml(ctx, text);
      return;
    }
    const prompt = schedulePrompt(ctx.t, result.schedule, result.runs, {
      nowMs: deps.now(),
      needsApproval: needsApproval(result.schedule.amount, approvalThresholdXaf),
      thresholdText: money(ctx.t, approvalThresholdXaf ?? 0),
      repeats: result.repeats,
    });
    // At or over STEP_UP_THRESHOLD_XAF its Confirm opens the Mini App, where the PIN is typed.
    const privateChat = ctx.chat.type === "private";
    const view = withPinSchedule(
      ctx.t,
      prompt,
      result.schedule,
      "schedule-confirm",
      deps.stepUp,
      privateChat,
    );
    const sent = await replyView(ctx, view);
    await schedules.attachMessage(result.schedule.id, sent.message_id);
  });

  composer.command("schedules", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null || !may(staff, "read")) return;
    const list = await schedules.list(staff, LIST_LIMIT);
    if (list.length === 0) {
      await replyHtml(ctx, ctx.t("schedule.list_empty"));
      return;
    }
    await replyHtml(ctx, ctx.t("schedule.list_title", { count: list.length }));
    for (const schedule of list) {
      const mayChange = staff.userId === schedule.ownerId || may(staff, "manage_staff");
      await replyView(ctx, scheduleListItem(ctx.t, schedule, nextRuns(schedule), mayChange));
    }
  });

  /** What a step on a schedule's message came to: the answer, and the message as it is now. */
  const show = async (ctx: BotContext, result: ScheduleStepResult, done: string) => {
    switch (result.outcome) {
      case "done":
      case "approval_requested":
        await ctx.answerCbQuery(done);
        break;
      case "forbidden":
        await ctx.answerCbQuery(ctx.t.plain("schedule.not_yours"), { show_alert: true });
        return;
      case "expired":
        await ctx.answerCbQuery(ctx.t.plain("schedule.expired"), { show_alert: true });
        break;
      case "no_runs":
        await ctx.answerCbQuery(ctx.t.plain("schedule.no_runs"), { show_alert: true });
        return;
      case "paused_by_staff":
        await ctx.answerCbQuery(ctx.t.plain("schedule.paused_by_staff"), { show_alert: true });
        return;
      case "step_up_required":
        // A press of an older prompt's Confirm, or a forged one: the PIN is typed in the app.
        await ctx.answerCbQuery(ctx.t.plain("schedule.step_up_required"), { show_alert: true });
        return;
      case "too_new":
        await ctx.answerCbQuery(ctx.t.plain("approve.too_new"), { show_alert: true });
        return;
      case "already_signed":
        await ctx.answerCbQuery(ctx.t.plain("approve.already_signed"), { show_alert: true });
        return;
      case "signed": {
        const { given, needed } = result;
        await ctx.answerCbQuery(ctx.t.plain("schedule.signed", { given, needed }));
        return;
      }
      case "already":
        await ctx.answerCbQuery(ctx.t.plain("schedule.already"));
        break;
      case "not_found":
        await dropGoneButtons(ctx);
        return;
    }
    await editView(ctx, scheduleStateView(ctx.t, result.schedule, nextRuns(result.schedule)));
  };

  composer.action(SCHEDULE_CALLBACK_PATTERN.confirm, async (ctx) => {
    const result = await schedules.confirm(ctx.match[1] ?? "", ctx.staff);
    const done =
      result.outcome === "approval_requested"
        ? ctx.t.plain("schedule.approval_requested")
        : ctx.t.plain("schedule.confirmed");
    await show(ctx, result, done);
  });
  composer.action(SCHEDULE_CALLBACK_PATTERN.cancel, async (ctx) => {
    const result = await schedules.cancel(ctx.match[1] ?? "", ctx.staff);
    await show(ctx, result, ctx.t.plain("schedule.cancelled"));
  });
  for (const [pattern, approve] of [
    [SCHEDULE_CALLBACK_PATTERN.approve, true],
    [SCHEDULE_CALLBACK_PATTERN.reject, false],
  ] as const) {
    composer.action(pattern, async (ctx) => {
      const result = await schedules.decide(ctx.match[1] ?? "", ctx.staff, approve);
      if (result.outcome === "forbidden") {
        await ctx.answerCbQuery(ctx.t.plain("schedule.not_allowed"), { show_alert: true });
        return;
      }
      await show(ctx, result, ctx.t.plain("schedule.changed"));
    });
  }
  for (const [pattern, step] of [
    [SCHEDULE_CALLBACK_PATTERN.pause, "pause"],
    [SCHEDULE_CALLBACK_PATTERN.resume, "resume"],
    [SCHEDULE_CALLBACK_PATTERN.delete, "delete"],
  ] as const) {
    composer.action(pattern, async (ctx) => {
      const result = await schedules.change(ctx.match[1] ?? "", ctx.staff, step);
      if ((result.outcome === "done" || result.outcome === "approval_requested") && ctx.staff) {
        const said =
          result.outcome === "approval_requested" ? "schedule.resume_approval" : "schedule.changed";
        await ctx.answerCbQuery(ctx.t.plain(said), { show_alert: said !== "schedule.changed" });
        const mayChange = result.schedule.state !== "deleted";
        const view = scheduleListItem(ctx.t, result.schedule, nextRuns(result.schedule), mayChange);
        await editView(ctx, view);
        return;
      }
      await show(ctx, result, ctx.t.plain("schedule.changed"));
    });
  }

  /** What a press on a run's button came to. */
  const answerRun = async (ctx: BotContext, press: RunPress) => {
    switch (press.outcome) {
      case "sent":
        await ctx.answerCbQuery(ctx.t.plain("schedule.run_sending"));
        break;
      case "skipped":
        await ctx.answerCbQuery(ctx.t.plain("schedule.run_skipped"));
        break;
      case "too_late":
        await ctx.answerCbQuery(ctx.t.plain("schedule.run_too_late"), { show_alert: true });
        break;
      case "forbidden":
        await ctx.answerCbQuery(ctx.t.plain("schedule.not_yours"), { show_alert: true });
        return;
      case "not_allowed":
        await ctx.answerCbQuery(ctx.t.plain("confirm.no_longer_allowed"), { show_alert: true });
        return;
      case "not_found":
        await dropGoneButtons(ctx);
        return;
      case "inactive":
      case "no_account":
      case "lookup_failed":
      case "not_sendable": {
        // Nothing sent: the held run keeps its buttons (Skip still ends it).
        const refused = {
          inactive: "schedule.run_inactive",
          no_account: "schedule.run_no_account",
          lookup_failed: "schedule.run_lookup_failed",
          not_sendable: "schedule.run_not_sendable",
        } as const;
        await ctx.answerCbQuery(ctx.t.plain(refused[press.outcome]), { show_alert: true });
        return;
      }
      case "held_again":
        await ctx.answerCbQuery(ctx.t.plain("schedule.run_held_again"), { show_alert: true });
        break;
      case "approval_requested":
        await ctx.answerCbQuery(ctx.t.plain("schedule.run_approval_requested"), {
          show_alert: true,
        });
        break;
      case "confirm_with_pin": {
        // As a /pay prompt of this amount: Confirm opens the Mini App, where the PIN is typed.
        await ctx.answerCbQuery(ctx.t.plain("pin.step_up_required"));
        const prompt = confirmationPrompt(ctx.t, press.payout, deps.now());
        const privateChat = ctx.chat?.type === "private";
        const sent = await replyView(
          ctx,
          deps.stepUp
            ? withPinConfirm(ctx.t, prompt, press.payout.id, deps.stepUp, privateChat)
            : prompt,
        );
        await deps.payouts.preparation.attachMessage(press.payout.id, sent.message_id);
        break;
      }
      default:
        await ctx.answerCbQuery(ctx.t.plain("schedule.run_gone"));
        break;
    }
    // Handled: the run's message keeps its text and loses its buttons.
    if (pressIsOnItsMessage(ctx))
      await ctx.editMessageReplyMarkup(undefined).catch(() => undefined);
  };

  composer.action(SCHEDULE_CALLBACK_PATTERN.sendAnyway, async (ctx) => {
    const [, id = "", key = ""] = ctx.match;
    await answerRun(ctx, await deps.payouts.scheduleRuns.sendAnyway(id, key, ctx.staff));
  });
  composer.action(SCHEDULE_CALLBACK_PATTERN.skip, async (ctx) => {
    const [, id = "", key = ""] = ctx.match;
    await answerRun(ctx, await deps.payouts.scheduleRuns.skipRun(id, key, ctx.staff));
  });

  return composer;
}
