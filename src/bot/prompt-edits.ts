/**
 * Edits of a payout's prompt made around a press: another press's payout, a final status
 * that landed before Confirm's own edit, a prompt retired by a newer one.
 */
import type { Payout } from "../model/payout.js";
import type { Stores } from "../store/types.js";
import { SIDE_CALL_MS } from "./best-effort.js";
import type { BotContext } from "./context.js";
import { editMessageView, editView } from "./reply.js";
import { bestEffort } from "./telegram-failure.js";
import { payoutStateView } from "./views.js";

/**
 * Refreshes a prompt whose payout another press already moved. One still `submitting` or
 * `pending` is left alone: the press that claimed it edits the prompt when the API answers,
 * and the notifier when the payment is final. An edit from here, made from a read that is
 * already old, could land after theirs and put "Sending…" back over "Pending", or
 * "Pending" over "Completed".
 */
export async function showMovedPayout(ctx: BotContext, payout: Payout): Promise<void> {
  if (payout.state === "submitting" || payout.state === "pending") return;
  await editView(ctx, payoutStateView(ctx.t, payout));
}

/**
 * A payment can settle, and the notifier edit the prompt to its final status, before
 * Confirm's own "Pending" edit lands: read the payout once more after that edit (the payer
 * already sees it) and put the final status back if it moved on meanwhile.
 */
export async function restoreSettled(
  ctx: BotContext,
  stores: Stores,
  shown: Payout,
): Promise<void> {
  const now = await stores.payouts.get(shown.id);
  if (now && now.state !== shown.state) await editView(ctx, payoutStateView(ctx.t, now));
}

/** A press on someone else's prompt: only its initiator may confirm or cancel it. */
export async function refuseOthersPress(ctx: BotContext): Promise<void> {
  await ctx.answerCbQuery(ctx.t.plain("confirm.not_yours"), { show_alert: true });
}

/** An older prompt retired (a newer one, /cancel): its message says so, its buttons go. */
export async function showRetired(
  ctx: BotContext,
  payout: Payout,
  replaced: boolean,
): Promise<void> {
  const { messageId } = payout;
  if (messageId === undefined) return;
  const view = payoutStateView(ctx.t, payout);
  const text = replaced ? `${view.text}\n\n${ctx.t("prompt.replaced")}` : view.text;
  await bestEffort(
    ctx.log,
    () => editMessageView(ctx.telegram, payout.chatId, messageId, { text }),
    SIDE_CALL_MS,
  );
}
