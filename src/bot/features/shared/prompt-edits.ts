/**
 * Edits of a payout's prompt made around a press: another press's payout, a prompt retired
 * by a newer one (a final status that landed before Confirm's own edit: telegram/prompt-watch.ts).
 */
import { traceMark } from "../../../metrics/latency-trace.js";
import type { Payout } from "../../../model/payout.js";
import type { SubmitResult } from "../../../payouts/types.js";
import type { BotContext } from "../../context.js";
import { SIDE_CALL_MS } from "../../telegram/best-effort.js";
import { bestEffort, settledWithin } from "../../telegram/failures.js";
import { canEditPressed, editMessageView, editView } from "../../telegram/reply.js";
import { payoutStateView, type View } from "../../views/common.js";

/**
 * A payment request answered within this shows its outcome in the press's one edit; a
 * slower one first shows "Sending…" (the press is answered with "Sending…" at once anyway).
 */
const SHOW_SENDING_AFTER_MS = 1_000;

/**
 * The first outcome to show: the accepted payout as soon as the API's answer is checked
 * (`accepted`, before its record is written), or else the submission's recorded outcome.
 */
function firstOutcome(
  submitted: Promise<SubmitResult>,
  accepted: Promise<Payout | undefined> | undefined,
): Promise<Payout> {
  return new Promise((resolve, reject) => {
    accepted?.then((payout) => {
      if (payout) resolve(payout);
    }, reject);
    submitted.then((result) => resolve(result.payout), reject);
  });
}

/** Whether two views read and act the same (no second edit needed). */
function sameView(a: View, b: View): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The press (Confirm, Approve) that let a request leave: answered at once with `answer`;
 * the pressed message shows a quick outcome in one edit, a slow one first as `view` of the
 * claimed payout. Telegram is told alongside the request, each call under a short deadline,
 * so a slow or failing Telegram can neither delay the payment nor strand it in `submitting`.
 * With `accepted` (Confirm), an accepted request shows "Pending" while its record is
 * written, and the recorded outcome is edited over it only if it reads otherwise.
 * Answers the outcome, once shown.
 */
export async function showSending(
  ctx: BotContext,
  claimed: Payout,
  submitted: Promise<SubmitResult>,
  options: {
    answer: string;
    view: (payout: Payout) => View;
    accepted?: Promise<Payout | undefined>;
  },
): Promise<SubmitResult> {
  const answered = bestEffort(
    ctx.log,
    "answerCallbackQuery",
    () => ctx.answerCbQuery(options.answer),
    SIDE_CALL_MS,
  );
  const outcome = firstOutcome(submitted, options.accepted);
  const quick = await settledWithin(outcome, SHOW_SENDING_AFTER_MS);
  // A press on no editable message (see editView) gets the outcome alone, as a new message.
  const sending =
    quick || !canEditPressed(ctx)
      ? undefined
      : bestEffort(
          ctx.log,
          "editMessageText",
          () => editView(ctx, options.view(claimed)),
          SIDE_CALL_MS,
        );
  const first = quick ?? (await outcome);
  // "Sending…" must not land over the outcome: the outcome is edited in after it.
  await sending;
  traceMark("edit outcome");
  const firstView = options.view(first);
  const [, result] = await Promise.all([editView(ctx, firstView), submitted, answered]);
  // The record said otherwise (it found the payment id taken, or failed): that goes on top.
  const recorded = options.view(result.payout);
  if (!sameView(recorded, firstView)) await editView(ctx, recorded);
  return result;
}

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
    "editMessageText",
    () => editMessageView(ctx.telegram, payout.chatId, messageId, { text }),
    SIDE_CALL_MS,
  );
}
