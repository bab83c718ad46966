/**
 * Telegram calls made alongside what matters (a payment request, a decision), whose
 * failure or slowness must not stop it (bestEffort, in failures.ts, runs them).
 */
import type { BotContext } from "../context.js";
import { pressIsOnItsMessage } from "./reply.js";

/** How long a press waits for Telegram's answer to a side call before it goes on. */
export const SIDE_CALL_MS = 3_000;

/**
 * A press naming a payout that no longer exists: say so, and take the buttons away when the
 * message carried that button (a forged id pressed on a real prompt leaves it as it is).
 */
export async function dropGoneButtons(ctx: BotContext): Promise<void> {
  await ctx.answerCbQuery(ctx.t.plain("confirm.gone"), { show_alert: true });
  if (!pressIsOnItsMessage(ctx)) return;
  await ctx.editMessageReplyMarkup(undefined).catch(() => undefined);
}
