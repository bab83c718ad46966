/**
 * The bot's context type, defined once: Telegraf's context plus the staff member behind
 * the update, their language, `t()` for translations and a child logger. The access
 * middleware (features/access.ts) fills these in before any feature runs.
 */
import { Context } from "telegraf";
import { type Translate, translator } from "../i18n.js";
import { type Logger, silentLogger } from "../logger.js";
import type { DialogState } from "../model/dialog.js";
import type { Locale } from "../model/locale.js";
import type { Role } from "../model/roles.js";
import type { StaffMember } from "../model/staff.js";
import type { PrepareAhead } from "../payouts/prepare.js";
import type { ConfirmResult } from "../payouts/types.js";
import { goesAtOnce } from "./telegram/transport.js";
import { webhookReplyFor } from "./telegram/webhook-reply.js";

/** A Confirm claimed with the access step's reads (features/shared/confirm-ahead.ts). */
export interface ConfirmClaimedAhead {
  payoutId: string;
  /** The role the presser could pay with at their last /pay or Confirm here. */
  role: Role;
  /** The claim's outcome; `throttled`: the press was over its limit, nothing claimed. */
  result: Promise<ConfirmResult | { outcome: "throttled" }>;
}

export class BotContext extends Context {
  /** The staff member who sent this update; null for anyone else. */
  staff: StaffMember | null = null;
  locale: Locale = "en";
  t: Translate = translator("en");
  log: Logger = silentLogger;
  /** The /pay dialog in progress in this chat, read with the staff member. */
  dialog: DialogState | null = null;
  /** A /pay's reads started with the access step's (features/pay.ts); null: none. */
  payoutAhead: PrepareAhead | null = null;
  /** A Confirm's claim sent with the access step's reads (shared/confirm-ahead.ts); null: none. */
  confirmAhead: ConfirmClaimedAhead | null = null;
  /** Whether this update's callback query was answered: Telegram takes one answer. */
  callbackAnswered = false;

  /**
   * Answers the press; in webhook mode, in the reply to Telegram's POST when it is still
   * open and the pacer holds nothing back (telegram/webhook-reply.ts), else as a call.
   */
  override answerCbQuery(...args: Parameters<Context["answerCbQuery"]>) {
    this.callbackAnswered = true;
    const query = this.callbackQuery;
    const reply = query ? webhookReplyFor(this.update) : undefined;
    if (query && reply) {
      const [text, extra] = args;
      // As Telegraf builds it; JSON leaves an undefined `text` out.
      const payload = { text, ...extra, callback_query_id: query.id };
      if (goesAtOnce(this.telegram, "answerCallbackQuery", payload)) {
        if (reply.answerCallbackQuery(payload)) return Promise.resolve(true as const);
      }
    }
    return super.answerCbQuery(...args);
  }
}
