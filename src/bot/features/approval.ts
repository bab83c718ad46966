/**
 * Four-eyes approval in the chat: the Approve and Reject buttons of an approval card (the
 * presser's role read afresh for this very press), the reason an approver gives by
 * replying to the card of a payout they rejected, and /approvals, which sends a card for
 * each payout waiting for the asker. An approved payout is sent at once, through the same
 * exactly-once submission as a Confirm.
 */
import type { Composer } from "telegraf";
import { message } from "telegraf/filters";
import type { Payout } from "../../model/payout.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import type { DecideRefusal } from "../../payouts/types.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { cardFacts } from "../messenger/approval-cards.js";
import { namesOf, payoutPeopleNames } from "../messenger/people.js";
import { dropGoneButtons, SIDE_CALL_MS } from "../telegram/best-effort.js";
import { bestEffort } from "../telegram/failures.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editMessageView, editView, replyHtml, replyView } from "../telegram/reply.js";
import { approvalCard, decidedPromptView, rejectedCard } from "../views/approval.js";
import { CALLBACK_PATTERN, money, type Names, personName } from "../views/common.js";
import { type StepUpSettings, withPinApprove } from "../views/step-up.js";
import { showSending } from "./shared/prompt-edits.js";

/** Cards /approvals sends at once; the rest wait for the next /approvals. */
const CARDS_PER_LIST = 10;

/** Why a press may not decide, in words (DecideRefusal's `why`). */
const FORBIDDEN_KEY = {
  not_allowed: "approve.not_allowed",
  own_payout: "approve.own",
  too_new: "approve.too_new",
  initiator_gone: "approve.initiator_gone",
} as const;

export interface ApprovalDeps {
  payouts: Payouts;
  stores: Stores;
  /** STEP_UP_THRESHOLD_XAF and WEBAPP_URL: a big payout's Approve opens the Mini App. */
  stepUp?: StepUpSettings | undefined;
}

export function approvalFeature(deps: ApprovalDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  const namesFor = (payout: Payout) => payoutPeopleNames(deps.stores.profiles, payout);

  /**
   * The decider's other cards of `payout` in this chat (the first one, one from
   * /approvals) say what became of it too: the notifier leaves the decider's chat to them.
   */
  const refreshOwnCards = async (ctx: BotContext, payout: Payout, names: Names) => {
    const pressed = ctx.callbackQuery?.message?.message_id;
    for (const card of await deps.stores.cards.list(payout.id)) {
      if (card.chatId !== ctx.chat?.id || card.messageId === pressed) continue;
      const view = approvalCard(ctx.t, payout, names);
      await bestEffort(
        ctx.log,
        "editMessageText",
        () => editMessageView(ctx.telegram, card.chatId, card.messageId, view),
        SIDE_CALL_MS,
      );
    }
  };

  const factsOf = (payout: Payout) =>
    cardFacts(
      deps.stores.profiles,
      (waiting) => deps.payouts.approval.duplicateOf(waiting),
      payout,
    );

  /** A press that decided nothing: why, and the card as the payout is now. */
  const refused = async (ctx: BotContext, result: DecideRefusal) => {
    if (result.outcome === "not_found") return dropGoneButtons(ctx);
    if (result.outcome === "forbidden") {
      await ctx.answerCbQuery(ctx.t.plain(FORBIDDEN_KEY[result.why]), { show_alert: true });
      return;
    }
    const expired = result.outcome === "expired";
    await ctx.answerCbQuery(ctx.t.plain(expired ? "approve.expired" : "approve.already"), {
      show_alert: expired,
    });
    // Another approver's decision: this card says who made it.
    const { names, duplicate } = await factsOf(result.payout);
    await editView(ctx, approvalCard(ctx.t, result.payout, names, { duplicate }));
  };

  /**
   * Approve, or "Approve anyway" (`duplicateSeenAtMs`: the creation time of the repeated
   * payout the card showed). The duplicate rule is asked again at the press: a repeat the
   * card did not show decides nothing, and the card is redrawn to show it.
   */
  const approve = async (ctx: BotContext, payoutId: string, duplicateSeenAtMs?: number) => {
    const staff = ctx.staff;
    if (staff === null) return;
    const options = duplicateSeenAtMs === undefined ? {} : { duplicateSeenAtMs };
    const result = await deps.payouts.approval.approve(payoutId, staff, options);
    if (result.outcome === "duplicate") {
      await ctx.answerCbQuery(ctx.t.plain("approve.duplicate"), { show_alert: true });
      const { payout, duplicate } = result;
      const names = await namesOf(deps.stores.profiles, [
        payout.initiatorId,
        duplicate.initiatorId,
      ]);
      await editView(ctx, approvalCard(ctx.t, payout, names, { duplicate }));
      return;
    }
    if (result.outcome === "over_limit") {
      // Nothing changed: the card stays as it is; the alert says which cap of today.
      const { over } = result;
      const key = over.limit === "payer" ? "approve.over_payer" : "approve.over_merchant";
      const amounts = { cap: money(ctx.t, over.capXaf), left: money(ctx.t, over.leftXaf) };
      await ctx.answerCbQuery(ctx.t.plain(key, amounts), { show_alert: true });
      return;
    }
    if (result.outcome === "step_up_required") {
      // Only the Mini App, with the approver's PIN, approves this one.
      ctx.log.warn({ payoutId }, "approve without the PIN refused");
      await ctx.answerCbQuery(ctx.t.plain("pin.approve_in_app"), { show_alert: true });
      return;
    }
    if (result.outcome === "already_signed") {
      await ctx.answerCbQuery(ctx.t.plain("approve.already_signed"), { show_alert: true });
      return;
    }
    if (result.outcome === "signed") {
      // Recorded, not the last: the card shows who signed; the others follow (outbox).
      const { given, needed } = result;
      await ctx.answerCbQuery(ctx.t.plain("approve.signed", { given, needed }));
      const { names, duplicate } = await factsOf(result.payout);
      await editView(ctx, approvalCard(ctx.t, result.payout, names, { duplicate }));
      return;
    }
    if (result.outcome !== "claimed") return refused(ctx, result);
    // Claimed: the request leaves at once, Telegram is told alongside (as for a Confirm).
    const submitted = deps.payouts.submission.submit(result);
    const names = await namesFor(result.payout);
    const sent = await showSending(ctx, result.payout, submitted, {
      answer: ctx.t.plain("approve.sending"),
      view: (payout) => approvalCard(ctx.t, payout, names, { status: true }),
    });
    await refreshOwnCards(ctx, sent.payout, names);
  };

  composer.action(CALLBACK_PATTERN.approve, (ctx) => approve(ctx, ctx.match[1] ?? ""));
  composer.action(CALLBACK_PATTERN.approveAnyway, (ctx) =>
    approve(ctx, ctx.match[1] ?? "", Number.parseInt(ctx.match[2] ?? "", 36)),
  );

  composer.action(CALLBACK_PATTERN.reject, async (ctx) => {
    const payoutId = ctx.match[1] ?? "";
    const staff = ctx.staff;
    if (staff === null) return;
    const result = await deps.payouts.approval.reject(payoutId, staff);
    if (result.outcome !== "rejected") return refused(ctx, result);
    await ctx.answerCbQuery(ctx.t.plain("reject.done"));
    const names = await namesFor(result.payout);
    await editView(ctx, rejectedCard(ctx.t, result.payout, names));
    await refreshOwnCards(ctx, result.payout, names);
  });

  // The initiator's "Withdraw my request" on their waiting prompt.
  composer.action(CALLBACK_PATTERN.withdraw, async (ctx) => {
    const staff = ctx.staff;
    if (staff === null) return;
    const result = await deps.payouts.approval.withdraw(ctx.match[1] ?? "", staff);
    switch (result.outcome) {
      case "not_found":
        return dropGoneButtons(ctx);
      case "forbidden":
        await ctx.answerCbQuery(ctx.t.plain("withdraw.not_yours"), { show_alert: true });
        return;
      case "already":
      case "withdrawn": {
        const done = result.outcome === "withdrawn";
        await ctx.answerCbQuery(ctx.t.plain(done ? "withdraw.done" : "withdraw.too_late"));
        const names = await namesFor(result.payout);
        await editView(ctx, decidedPromptView(ctx.t, result.payout, names));
        return;
      }
    }
  });

  // A reply to an approval card: the reason of a rejection. Anything else goes on.
  composer.on(message("text"), async (ctx, next) => {
    const card = ctx.message.reply_to_message;
    if (!card || ctx.message.text.startsWith("/") || ctx.staff === null) return next();
    const payoutId = await deps.stores.cards.payoutOf({
      chatId: ctx.chat.id,
      messageId: card.message_id,
    });
    if (payoutId === null) return next();
    const result = await deps.payouts.approval.addReason(payoutId, ctx.staff, ctx.message.text);
    switch (result.outcome) {
      case "added": {
        const names = await namesFor(result.payout);
        const name = personName(ctx.t, names, result.payout.initiatorId);
        await replyHtml(ctx, ctx.t("reason.saved", { name }));
        return;
      }
      case "already":
        await replyHtml(
          ctx,
          ctx.t("reason.already", { reason: result.payout.rejectionReason ?? "" }),
        );
        return;
      case "not_yours":
        await replyHtml(ctx, ctx.t("reason.not_yours"));
        return;
      case "not_found":
      case "empty":
        return next();
    }
  });

  composer.command("approvals", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null || !may(staff, "approve")) {
      await replyHtml(ctx, ctx.t("access.approvers_only"));
      return;
    }
    const waiting = await deps.payouts.approval.waitingFor(staff);
    if (waiting.length === 0) {
      await replyHtml(ctx, ctx.t("approvals.none"));
      return;
    }
    await replyHtml(ctx, ctx.t("approvals.title", { count: waiting.length }));
    const shown = waiting.slice(0, CARDS_PER_LIST);
    for (const payout of shown) {
      // Each with the payout it repeats, if any, as its first card says.
      const { names, duplicate } = await factsOf(payout);
      const card = approvalCard(ctx.t, payout, names, { duplicate });
      const sent = await replyView(ctx, withPinApprove(ctx.t, card, payout, deps.stepUp));
      // Edited with the others once someone decides.
      await deps.payouts.approval.attachCard(payout.id, {
        chatId: ctx.chat.id,
        messageId: sent.message_id,
      });
    }
    if (waiting.length > CARDS_PER_LIST) {
      await replyHtml(ctx, ctx.t("approvals.more", { count: waiting.length - CARDS_PER_LIST }));
    }
  });

  return composer;
}
