/**
 * A Confirm's claim sent with the access step's reads, one Redis round trip sooner: the
 * press is counted in the claim's own atomic step (Submission.confirmPressed, on the access
 * step's press counter), so a press over its limit claims nothing, and the claim checks the
 * initiator's role in the staff record itself, so one demoted or removed since pays nothing.
 * Only in a private chat, for someone who could pay at their last /pay or Confirm in this
 * process (PayAhead), when the prompt's record this process writes is already stored and no
 * PIN step-up is configured; any other press goes the usual way. The Confirm handler
 * (features/pay.ts) takes its outcome instead of claiming again.
 */
import type { Role } from "../../../model/roles.js";
import type { Payouts } from "../../../payouts/payouts.js";
import type { PressCounter } from "../../../payouts/sessions.js";
import type { BotContext } from "../../context.js";
import { CALLBACK_PATTERN } from "../../views/common.js";
import type { PayAhead } from "./pay-ahead.js";

export class ConfirmAhead {
  readonly #payouts: Pick<Payouts, "submission" | "preparation">;
  readonly #payers: PayAhead;

  constructor(payouts: Pick<Payouts, "submission" | "preparation">, payers: PayAhead) {
    this.#payouts = payouts;
    this.#payers = payers;
  }

  /**
   * Sends the claim of a Confirm pressed by a known payer in a private chat (ctx.confirmAhead).
   * `roleNow`: the access step's read of their role, which the claim's audit and what follows
   * it (an approval asked, a cap's refusal) name instead of the role remembered here.
   */
  start(ctx: BotContext, press: PressCounter, roleNow: Promise<Role | null>): void {
    const from = ctx.from;
    const query = ctx.callbackQuery;
    if (!from || !query || !("data" in query) || ctx.chat?.type !== "private") return;
    const payoutId = CALLBACK_PATTERN.confirm.exec(query.data)?.[1];
    if (payoutId === undefined) return;
    const role = this.#payers.payingRole(from.id);
    if (role === undefined) return;
    const { submission, preparation } = this.#payouts;
    if (!submission.confirmsWithoutReading || !preparation.isStored(payoutId)) return;
    const result = submission.confirmPressed(payoutId, { userId: from.id, role }, press, roleNow);
    // Awaited by the access step and the Confirm handler; never left unhandled.
    result.catch(() => undefined);
    ctx.confirmAhead = { payoutId, role, result };
  }
}
