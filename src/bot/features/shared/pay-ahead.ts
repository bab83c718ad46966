/**
 * `/pay NUMBER AMOUNT` in fewer round trips: its reads before the name look-up (the
 * duplicate rule, the daily caps, the look-up's rate-limit slot; Preparation.ahead) go out
 * with the access step's own reads, before the sender's role is known. Only for someone who
 * could pay at their last /pay in this process, so a stranger's /pay takes no slot; the role
 * read with them still decides (one demoted meanwhile is refused, the slot spent).
 */
import type { PayoutKind } from "../../../model/payout.js";
import type { Role } from "../../../model/roles.js";
import type { Preparation } from "../../../payouts/prepare.js";
import type { BotContext } from "../../context.js";
import { commandPayload, splitPaymentArgs } from "./command-args.js";

const COMMAND = /^\/(pay|collect)(?:@(\w+))?(?:\s|$)/i;
const KIND: Record<string, PayoutKind> = { pay: "disbursement", collect: "collection" };
/** At most this many payers remembered (staff are few; past it, the oldest is forgotten). */
const MAX_PAYERS = 1_000;

export class PayAhead {
  readonly #preparation: Preparation;
  /** Who could pay at their last /pay (or Confirm) in this process, with that role. */
  readonly #payers = new Map<number, Role>();

  constructor(preparation: Preparation) {
    this.#preparation = preparation;
  }

  /** The role `userId` could pay with at their last /pay or Confirm here; undefined: unknown. */
  payingRole(userId: number): Role | undefined {
    return this.#payers.get(userId);
  }

  /** Starts the reads of a private `/pay NUMBER AMOUNT` from a known payer (ctx.payoutAhead). */
  start(ctx: BotContext): void {
    const from = ctx.from;
    const message = ctx.message;
    if (!from || !message || !("text" in message) || ctx.chat?.type !== "private") return;
    if (!this.#payers.has(from.id)) return;
    const command = COMMAND.exec(message.text);
    const kind = KIND[command?.[1]?.toLowerCase() ?? ""];
    const to = command?.[2];
    if (!kind || (to !== undefined && to.toLowerCase() !== ctx.me?.toLowerCase())) return;
    const args = splitPaymentArgs(commandPayload(message.text));
    if (args.phone === undefined || args.amount === undefined) return;
    const request = { kind, phone: args.phone, amount: args.amount, initiatorId: from.id };
    ctx.payoutAhead = this.#preparation.ahead(request) ?? null;
  }

  /**
   * What the fresh role said at a /pay or a Confirm: the role with which `userId` may pay
   * (read ahead next time), or null when they may not.
   */
  saw(userId: number, payingRole: Role | null): void {
    this.#payers.delete(userId);
    if (payingRole === null) return;
    this.#payers.set(userId, payingRole);
    if (this.#payers.size > MAX_PAYERS) {
      const oldest = this.#payers.keys().next().value;
      if (oldest !== undefined) this.#payers.delete(oldest);
    }
  }
}
