/**
 * Telegram calls made alongside what matters (a payment request, a decision), whose
 * failure or slowness must not stop it (bestEffort, in telegram-failure.ts, runs them).
 */
import type { BotContext } from "./context.js";

/** How long a press waits for Telegram's answer to a side call before it goes on. */
export const SIDE_CALL_MS = 3_000;

/** A press on a message whose payout no longer exists: say so and take the buttons away. */
export async function dropGoneButtons(ctx: BotContext): Promise<void> {
  await ctx.answerCbQuery(ctx.t.plain("confirm.gone"), { show_alert: true });
  await ctx.editMessageReplyMarkup(undefined).catch(() => undefined);
}
