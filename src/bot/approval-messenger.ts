/**
 * The approval notices on Telegram (see TelegramMessenger): the cards sent to every
 * approver but the initiator, each remembered so that it can be edited once someone (or
 * the clock) decided; and the payer told of a rejection, an expiry, an approved payout's
 * outcome, and a rejection's reason, in their language.
 */
import type { Telegram } from "telegraf";
import { translator } from "../i18n.js";
import type { Logger } from "../logger.js";
import type { ApprovalNoticeKind } from "../model/notice.js";
import type { Payout } from "../model/payout.js";
import { mayDecide } from "../payouts/policy.js";
import type { Stores } from "../store/types.js";
import {
  approvalCard,
  decidedPromptView,
  type Names,
  payerDecisionNotice,
  rejectionReasonNotice,
} from "./approval-views.js";
import { editMessageView, sendView } from "./reply.js";
import { namesOf } from "./staff-names.js";
import type { View } from "./views.js";

export interface ApprovalDeliveriesOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
  /** How long a card is remembered (for edits, and replies that give a reason). */
  cardTtlMs: number;
  /** Telegram's refusal as a DeliveryError (retry, or give up). */
  toDeliveryError: (error: unknown) => Error & { permanent: boolean };
}

export class ApprovalDeliveries {
  readonly #options: ApprovalDeliveriesOptions;

  constructor(options: ApprovalDeliveriesOptions) {
    this.#options = options;
  }

  async deliver(kind: ApprovalNoticeKind, payout: Payout): Promise<void> {
    switch (kind) {
      case "approval_requested":
        return this.#sendCards(payout);
      case "approval_decided":
        // The approver who decided sees it on their own card already (their press).
        await this.#editCards(payout, payout.approvedBy ?? payout.rejectedBy);
        // An approved payout's payer is told once its request was answered.
        if (payout.approvedBy === undefined) await this.#tellPayer(payout, payerDecisionNotice);
        return;
      case "approved_outcome":
        return this.#tellPayer(payout, payerDecisionNotice);
      case "rejection_reason":
        await this.#editCards(payout, undefined);
        return this.#tellPayer(payout, rejectionReasonNotice);
    }
  }

  /**
   * A card to every approver and admin but the initiator, each remembered. Those who have
   * one already (a retry) are skipped; one who blocked the bot is logged and skipped; any
   * other failure is thrown once the rest were tried, for the notifier to try again.
   */
  async #sendCards(payout: Payout): Promise<void> {
    const { stores, telegram, logger, cardTtlMs, toDeliveryError } = this.#options;
    if (payout.state !== "awaiting_approval") return;
    const staff = await stores.staff.list();
    const approvers = staff.filter((member) => mayDecide(member, payout) === "allowed");
    const done = new Set((await stores.cards.list(payout.id)).map((card) => card.chatId));
    const names = await namesOf(stores.profiles, [payout.initiatorId]);
    let retry: Error | undefined;
    for (const { userId } of approvers) {
      if (done.has(userId)) continue;
      const view = approvalCard(await this.#translator(userId), payout, names);
      try {
        const sent = await sendView(telegram, userId, view);
        await stores.cards.add(
          payout.id,
          { chatId: userId, messageId: sent.message_id },
          cardTtlMs,
        );
      } catch (error) {
        const failure = toDeliveryError(error);
        logger.warn(
          { err: error, payoutId: payout.id, chatId: userId },
          "could not send an approval card",
        );
        if (!failure.permanent) retry = failure;
      }
    }
    if (retry) throw retry;
  }

  /** Every card of `payout` shows what became of it (but `skipChatId`'s). Best effort. */
  async #editCards(payout: Payout, skipChatId: number | undefined): Promise<void> {
    const { stores, telegram, logger } = this.#options;
    const names = await this.#names(payout);
    for (const card of await stores.cards.list(payout.id)) {
      if (card.chatId === skipChatId) continue;
      const view = approvalCard(await this.#translator(card.chatId), payout, names);
      await editMessageView(telegram, card.chatId, card.messageId, view).catch((error: unknown) =>
        logger.debug({ err: error, payoutId: payout.id }, "could not edit an approval card"),
      );
    }
  }

  /** The payer's prompt edited to what it is now, and `notice` pushed (what must arrive). */
  async #tellPayer(
    payout: Payout,
    notice: (t: ReturnType<typeof translator>, payout: Payout, names: Names) => View,
  ): Promise<void> {
    const { telegram, logger, timeZone, toDeliveryError } = this.#options;
    const t = translator(payout.locale, timeZone);
    const names = await this.#names(payout);
    if (payout.messageId !== undefined) {
      const view = decidedPromptView(t, payout, names);
      await editMessageView(telegram, payout.chatId, payout.messageId, view).catch(
        (error: unknown) =>
          logger.debug({ err: error, payoutId: payout.id }, "could not edit the prompt"),
      );
    }
    try {
      await sendView(telegram, payout.chatId, notice(t, payout, names));
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  /** Names of the initiator and whoever decided. */
  #names(payout: Payout): Promise<Map<number, string>> {
    const people = [payout.initiatorId, payout.approvedBy, payout.rejectedBy];
    const ids = people.filter((id): id is number => id !== undefined);
    return namesOf(this.#options.stores.profiles, ids);
  }

  async #translator(userId: number) {
    const locale = (await this.#options.stores.sessions.getLocale(userId)) ?? "en";
    return translator(locale, this.#options.timeZone);
  }
}
