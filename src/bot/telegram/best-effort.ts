/**
 * Telegram calls made alongside what matters (a payment request, a decision), whose
 * failure or slowness must not stop it (bestEffort, in failures.ts, runs them).
 */
import type { BotContext } from "../context.js";
import { bestEffort } from "./failures.js";
import { pressIsOnItsMessage } from "./reply.js";

/** How long a press waits for Telegram's answer to a side call before it goes on. */
export const SIDE_CALL_MS = 3_000;

/**
 * How long after its prompt was sent a press that finds no payout is told to try again
 * rather than that the button is gone: the prompt goes out before its record is stored
 * (payouts/prepare.ts `publish`), and a press another bot process takes in between finds
 * nothing yet.
 */
export const PROMPT_STORING_GRACE_MS = 60_000;

/**
 * A press naming a payout that no longer exists: say so, and take the buttons away when the
 * message carried that button (a forged id pressed on a real prompt leaves it as it is).
 */
export async function dropGoneButtons(ctx: BotContext): Promise<void> {
  await ctx.answerCbQuery(ctx.t.plain("confirm.gone"), { show_alert: true });
  if (!pressIsOnItsMessage(ctx)) return;
  await ctx.editMessageReplyMarkup(undefined).catch(() => undefined);
}

/**
 * A press naming no stored payout. On a prompt sent within PROMPT_STORING_GRACE_MS its
 * record may not be stored yet: say so and leave the buttons, to be pressed again.
 * Otherwise the payout is gone (dropGoneButtons).
 */
export async function answerNotFound(ctx: BotContext, nowMs: number): Promise<void> {
  const sentAtSeconds = ctx.callbackQuery?.message?.date;
  const recent =
    sentAtSeconds !== undefined && nowMs - sentAtSeconds * 1000 < PROMPT_STORING_GRACE_MS;
  if (recent && pressIsOnItsMessage(ctx)) {
    await ctx.answerCbQuery(ctx.t.plain("confirm.not_stored_yet"));
    return;
  }
  await dropGoneButtons(ctx);
}

/** Takes the buttons off a prompt whose payout could not be stored (logged, not thrown). */
export async function dropPromptButtons(
  ctx: BotContext,
  chatId: number,
  messageId: number,
): Promise<void> {
  await bestEffort(
    ctx.log,
    "editMessageReplyMarkup",
    () => ctx.telegram.editMessageReplyMarkup(chatId, messageId, undefined, undefined),
    SIDE_CALL_MS,
  );
}
