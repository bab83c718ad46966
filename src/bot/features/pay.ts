/**
 * /pay and /collect: collect the number and amount (in one line or step by step), show
 * the registered name with Confirm / Cancel, and hand the presses to the payout steps.
 * Nothing here talks to the Payment API; payouts/submission.ts does, exactly once.
 */
import type { Composer } from "telegraf";
import { message } from "telegraf/filters";
import { type MessageKey, stripHtml } from "../../i18n.js";
import { traceMark } from "../../metrics/latency-trace.js";
import type { DialogState } from "../../model/dialog.js";
import type { PayoutState } from "../../model/lifecycle.js";
import { MAX_AMOUNT_XAF, parseAmount } from "../../model/money.js";
import type { PayoutKind } from "../../model/payout.js";
import type { Payouts } from "../../payouts/payouts.js";
import { profileOf } from "../../payouts/people.js";
import { may } from "../../payouts/policy.js";
import type { ConfirmResult, SubmitResult } from "../../payouts/types.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { payerWaitingView } from "../messenger/approval-cards.js";
import { answerNotFound, dropPromptButtons } from "../telegram/best-effort.js";
import { cosmetic, showingWhileSlow } from "../telegram/failures.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import type { PromptWatch } from "../telegram/prompt-watch.js";
import { editView, replyHtml, replyView } from "../telegram/reply.js";
import { CALLBACK_PATTERN, payoutStateView, type View } from "../views/common.js";
import {
  amountProblemText,
  cannotPayText,
  confirmationPrompt,
  overLimitText,
  prepareFailureText,
  promptExtras,
} from "../views/pay.js";
import { needsStepUp, type StepUpSettings, withPinConfirm } from "../views/step-up.js";
import { commandPayload, splitPaymentArgs } from "./shared/command-args.js";
import type { PayAhead } from "./shared/pay-ahead.js";
import {
  refuseOthersPress,
  showMovedPayout,
  showRetired,
  showSending,
} from "./shared/prompt-edits.js";
import {
  recipientFound,
  recipientProblemText,
  type SavedRecipient,
  withAliasNotes,
} from "./shared/recipient-args.js";

export interface PayDeps {
  payouts: Payouts;
  stores: Stores;
  now: () => number;
  /** STEP_UP_THRESHOLD_XAF and WEBAPP_URL: big payouts are confirmed in the Mini App. */
  stepUp?: StepUpSettings | undefined;
  /** Shared with the notifier's messenger: a final status is never left under "Pending". */
  prompts: PromptWatch;
  /** A /pay's reads started with the access step's (given to `access` as `early`). */
  ahead: PayAhead;
}

/** A half-finished /pay dialog is forgotten after this long. */
const DIALOG_TTL_SECONDS = 600;

const COMMAND_OF: Record<PayoutKind, "pay" | "collect"> = {
  disbursement: "pay",
  collection: "collect",
};

export function payFeature(deps: PayDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  const mayPay = async (ctx: BotContext): Promise<boolean> => {
    const allowed = may(ctx.staff, "pay");
    if (ctx.from) deps.ahead.saw(ctx.from.id, allowed && ctx.staff ? ctx.staff.role : null);
    if (allowed) return true;
    await replyHtml(ctx, cannotPayText(ctx.t, ctx.staff?.role ?? "viewer"));
    return false;
  };

  /** Validated number and amount in hand: ask the service and show the prompt. */
  const prepare = async (
    ctx: BotContext,
    kind: PayoutKind,
    phone: string,
    amount: string,
    note?: string,
    saved?: SavedRecipient,
  ) => {
    const chatId = ctx.chat?.id;
    const staff = ctx.staff;
    if (chatId === undefined || staff === null) return;
    // "typing…" only when the look-up is slow; cosmetic, and not waited for: the prompt
    // must not queue behind it.
    const typing = () =>
      void cosmetic("sendChatAction", () => ctx.sendChatAction("typing"), ctx.log);
    const preparing = deps.payouts.preparation.draft(
      {
        kind,
        phone,
        amount,
        note,
        initiatorId: staff.userId,
        initiatorRole: staff.role,
        chatId,
        locale: ctx.locale,
        ...(saved ? { saved } : {}),
        initiatorProfile: ctx.from ? profileOf(ctx.from) : undefined,
      },
      ctx.payoutAhead ?? undefined,
    );
    const result = await showingWhileSlow(preparing, typing);
    traceMark("pay drafted");
    if (result.outcome === "refused") {
      ctx.log.info({ reason: result.reason }, "payout refused before confirmation");
      await replyHtml(ctx, prepareFailureText(ctx.t, result, COMMAND_OF[kind], MAX_AMOUNT_XAF));
      return;
    }
    const { duplicate } = result;
    const names = duplicate ? result.names : null;
    const threshold = deps.payouts.approval.thresholdXaf;
    const extras = withAliasNotes(
      ctx.t,
      result.payout,
      promptExtras(ctx.t, result.payout, {
        duplicate,
        names,
        threshold,
        band: deps.payouts.approval.bandOf(result.payout.amount),
      }),
    );
    const prompt = confirmationPrompt(ctx.t, result.payout, deps.now(), extras);
    const { stepUp } = deps;
    const privateChat = ctx.chat?.type === "private";
    const view =
      stepUp && needsStepUp(stepUp, result.payout.amount, result.payout.kind)
        ? withPinConfirm(ctx.t, prompt, result.payout.id, stepUp, privateChat)
        : prompt;
    // The prompt first, then its record with the message id in one write (prepare.ts).
    let sentId: number | undefined;
    const published = await deps.payouts.preparation
      .publish(result.payout, staff.role, async () => {
        sentId = (await replyView(ctx, view)).message_id;
        return sentId;
      })
      .catch(async (error: unknown) => {
        // Shown but not stored: its buttons would only ever find nothing.
        if (sentId !== undefined) await dropPromptButtons(ctx, chatId, sentId);
        throw error;
      });
    if (published.replaced) await showRetired(ctx, published.replaced, true);
  };

  const start = async (ctx: BotContext, kind: PayoutKind, text: string) => {
    if (!(await mayPay(ctx))) return;
    const chatId = ctx.chat?.id;
    if (chatId === undefined) return;
    // A new command replaces a dialog in progress (read with the staff member, in access).
    if (ctx.dialog) await deps.payouts.sessions.closeDialog(chatId);
    const args = splitPaymentArgs(commandPayload(text));
    if (args.phone === undefined) {
      await deps.payouts.sessions.openDialog(chatId, { kind, step: "phone" }, DIALOG_TTL_SECONDS);
      await replyHtml(
        ctx,
        ctx.t(kind === "disbursement" ? "dialog.ask_phone_pay" : "dialog.ask_phone_collect"),
      );
      return;
    }
    const recipient = await deps.payouts.recipients.resolve(args.phone);
    traceMark("pay resolved");
    const found = recipientFound(recipient);
    if (!found) {
      await replyHtml(ctx, recipientProblemText(ctx.t, recipient, COMMAND_OF[kind]));
      return;
    }
    if (args.amount === undefined) {
      await deps.payouts.sessions.openDialog(
        chatId,
        {
          kind,
          step: "amount",
          phone: found.phone,
          ...(found.saved ? { alias: found.saved.alias } : {}),
        },
        DIALOG_TTL_SECONDS,
      );
      await replyHtml(ctx, ctx.t("dialog.ask_amount"));
      return;
    }
    await prepare(ctx, kind, found.phone, args.amount, args.note, found.saved);
  };

  composer.command("pay", (ctx) => start(ctx, "disbursement", ctx.message.text));
  composer.command("collect", (ctx) => start(ctx, "collection", ctx.message.text));

  composer.command("cancel", async (ctx) => {
    const dialog = ctx.dialog;
    if (dialog) await deps.payouts.sessions.closeDialog(ctx.chat.id);
    // The prompt waiting for this person's Confirm goes too.
    const promptId = await deps.stores.payouts.openPrompt(ctx.chat.id, ctx.from.id);
    const retired =
      promptId === null || ctx.staff === null
        ? null
        : await deps.payouts.preparation.retire(promptId, ctx.staff, { command: "cancel" });
    if (retired) await showRetired(ctx, retired, false);
    const done = dialog !== null || retired !== null;
    await replyHtml(ctx, ctx.t(done ? "dialog.cancelled" : "dialog.nothing_to_cancel"));
  });

  composer.on(message("text"), async (ctx, next) => {
    if (ctx.message.text.startsWith("/")) return next();
    const dialog = ctx.dialog;
    if (!dialog) return next();
    if (!(await mayPay(ctx))) return;
    await dialogStep(ctx, dialog, ctx.message.text);
  });

  const dialogStep = async (ctx: BotContext, dialog: DialogState, text: string) => {
    const chatId = ctx.chat?.id;
    if (chatId === undefined) return;
    if (dialog.step === "phone") {
      const recipient = await deps.payouts.recipients.resolve(text);
      const found = recipientFound(recipient);
      if (!found) {
        const problem = recipientProblemText(ctx.t, recipient, COMMAND_OF[dialog.kind]);
        await replyHtml(ctx, `${problem}\n${ctx.t("dialog.retry_or_cancel")}`);
        return;
      }
      await deps.payouts.sessions.openDialog(
        chatId,
        {
          ...dialog,
          step: "amount",
          phone: found.phone,
          ...(found.saved ? { alias: found.saved.alias } : {}),
        },
        DIALOG_TTL_SECONDS,
      );
      await replyHtml(ctx, ctx.t("dialog.ask_amount"));
      return;
    }
    const amount = parseAmount(text);
    if (!amount.ok || dialog.phone === undefined) {
      const problem = amount.ok ? "empty" : amount.problem;
      await replyHtml(
        ctx,
        `${amountProblemText(ctx.t, problem, MAX_AMOUNT_XAF)}\n${ctx.t("dialog.retry_or_cancel")}`,
      );
      return;
    }
    await deps.payouts.sessions.closeDialog(chatId);
    // The alias is read again: the address book may have changed while the dialog ran.
    let saved: SavedRecipient | undefined;
    if (dialog.alias !== undefined) {
      const recipient = await deps.payouts.recipients.resolve(dialog.alias);
      const found = recipientFound(recipient);
      if (!found || found.phone !== dialog.phone) {
        await replyHtml(ctx, recipientProblemText(ctx.t, recipient, COMMAND_OF[dialog.kind]));
        return;
      }
      saved = found.saved;
    }
    await prepare(ctx, dialog.kind, dialog.phone, text, undefined, saved);
  };

  composer.action(CALLBACK_PATTERN.confirm, async (ctx) => {
    const payoutId = ctx.match[1] ?? "";
    // Claimed with the access step's reads (shared/confirm-ahead.ts), its request already
    // on its way when claimed: its outcome is this press's, never a second claim, unless it
    // refused the presser's own payout for a role the fresh read says may pay (a promotion
    // between the two reads: nothing was claimed).
    const ahead = ctx.confirmAhead?.payoutId === payoutId ? await ctx.confirmAhead.result : null;
    const mayPay = may(ctx.staff, "pay");
    if (ctx.from) deps.ahead.saw(ctx.from.id, mayPay && ctx.staff ? ctx.staff.role : null);
    // The role is read afresh for every update: one demoted since the prompt cannot pay. A
    // claim made ahead read it later than that (in its own step), and its request leaves.
    if (!mayPay && ahead?.outcome !== "claimed") {
      await ctx.answerCbQuery(ctx.t.plain("confirm.no_longer_allowed"), { show_alert: true });
      return;
    }
    const asker = ctx.staff;
    const refusedOwn = ahead?.outcome === "forbidden" && ahead.payout.initiatorId === ctx.from?.id;
    let claim: ConfirmResult;
    if (ahead !== null && ahead.outcome !== "throttled" && !refusedOwn) {
      claim = ahead;
    } else {
      if (asker === null) return;
      await deps.payouts.preparation.stored(payoutId);
      traceMark("confirm stored");
      claim = await deps.payouts.submission.confirm(payoutId, asker);
    }
    traceMark("confirm claimed");
    switch (claim.outcome) {
      case "claimed": {
        // The request left with the claim: nothing slow stood between them.
        const { chatId, messageId } = claim.payout;
        const { settled } = await deps.prompts.editing<SubmitResult, View>(chatId, messageId, () =>
          showSending(ctx, claim.payout, claim.submitted, {
            answer: ctx.t.plain("confirm.sending"),
            view: (payout) => payoutStateView(ctx.t, payout),
            accepted: claim.answered,
          }),
        );
        // The payment settled, and the notifier edited the prompt, while this edit was on
        // its way: its final status goes back over this edit.
        if (settled) await editView(ctx, settled);
        return;
      }
      case "approval_requested": {
        await ctx.answerCbQuery(ctx.t.plain("confirm.approval_requested"));
        const { profiles } = deps.stores;
        await editView(ctx, await payerWaitingView(ctx.t, profiles, claim.payout, claim.approvers));
        return;
      }
      case "over_limit":
        // Nothing changed: the prompt stays, and says nothing new; the alert says why.
        await ctx.answerCbQuery(stripHtml(overLimitText(ctx.t, claim.over)), { show_alert: true });
        return;
      case "forbidden":
        await refuseOthersPress(ctx);
        return;
      case "expired":
        await ctx.answerCbQuery(ctx.t.plain("confirm.expired"), { show_alert: true });
        await editView(ctx, payoutStateView(ctx.t, claim.payout));
        return;
      case "already":
        await ctx.answerCbQuery(ctx.t.plain("confirm.already"));
        await showMovedPayout(ctx, claim.payout);
        return;
      case "not_found":
        await answerNotFound(ctx, deps.now());
        return;
      case "step_up_required":
        // Only the Mini App, with the PIN, confirms this one: a chat press (an old
        // prompt's button, or a forged one) changes nothing.
        ctx.log.warn({ payoutId }, "confirm without the PIN refused");
        await ctx.answerCbQuery(ctx.t.plain("pin.step_up_required"), { show_alert: true });
        return;
    }
  });

  composer.action(CALLBACK_PATTERN.cancel, async (ctx) => {
    const payoutId = ctx.match[1] ?? "";
    await deps.payouts.preparation.stored(payoutId);
    const result = await deps.payouts.preparation.cancel(payoutId, ctx.staff);
    switch (result.outcome) {
      case "cancelled":
        await ctx.answerCbQuery(ctx.t.plain("cancel.done"));
        await editView(ctx, payoutStateView(ctx.t, result.payout));
        return;
      case "forbidden":
        await refuseOthersPress(ctx);
        return;
      case "already":
        // A second tap, an expired prompt or a confirmed payout: say which, never that
        // money left when it did not.
        await ctx.answerCbQuery(ctx.t.plain(cancelTooLateKey(result.payout.state)));
        await showMovedPayout(ctx, result.payout);
        return;
      case "not_found":
        await answerNotFound(ctx, deps.now());
        return;
    }
  });

  return composer;
}

/** What a Cancel pressed on a payout no longer awaiting its Confirm answers. */
function cancelTooLateKey(state: PayoutState): MessageKey {
  if (state === "cancelled") return "cancel.already_cancelled";
  if (state === "expired") return "cancel.already_expired";
  return "cancel.too_late";
}
