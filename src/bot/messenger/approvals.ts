/**
 * The approval notices on Telegram (see TelegramMessenger): the cards sent to every
 * approver but the initiator, each remembered so that it can be edited once someone (or
 * the clock) decided; and the payer told of a rejection, an expiry, an approved payout's
 * outcome, and a rejection's reason, in their language.
 */
import type { Telegram } from "telegraf";
import { type Translate, translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import type { ApprovalNoticeKind } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import { decidersOf } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import { toDeliveryError } from "../telegram/failures.js";
import { editMessageView, sendView } from "../telegram/reply.js";
import {
  approvalCard,
  decidedPromptView,
  payerDecisionNotice,
  rejectionReasonNotice,
  signatureLines,
} from "../views/approval.js";
import type { Names, View } from "../views/common.js";
import { type StepUpSettings, withPinApprove } from "../views/step-up.js";
import { cardFacts, type DuplicateFinder, payerWaitingView } from "./approval-cards.js";
import { payoutPeopleNames, translatorFor } from "./people.js";

export interface ApprovalDeliveriesOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
  /** The payout a waiting one repeats, shown on its cards (default: none is looked for). */
  duplicateOf?: DuplicateFinder;
  /** STEP_UP_THRESHOLD_XAF and WEBAPP_URL: a big payout's Approve opens the Mini App. */
  stepUp?: StepUpSettings | undefined;
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
      case "approval_decided": {
        const names = await this.#names(payout);
        if (payout.approvedBy !== undefined) {
          // Every card, the approver's own too: an approval given with the PIN, in the Mini
          // App, pressed nothing in the chat. Each says what it is now.
          await this.#editCards(payout, names, undefined, { status: true });
        } else {
          // The approver who rejected sees it on their own card already (their press,
          // which asks for the reason).
          await this.#editCards(payout, names, payout.rejectedBy);
        }
        // An approved payout's payer is told once its request was answered; a withdrawn
        // one's payer withdrew it themselves (their press showed it).
        if (payout.approvedBy !== undefined || payout.state === "cancelled") return;
        return this.#tellPayer(payout, names, payerDecisionNotice);
      }
      case "approval_signed":
        return this.#showSignatures(payout);
      case "approved_outcome": {
        // The request was answered: the cards' "Now: …" follows (Sending… → Pending).
        const names = await this.#names(payout);
        await this.#editCards(payout, names, undefined, { status: true });
        return this.#tellPayer(payout, names, payerDecisionNotice);
      }
      case "rejection_reason": {
        const names = await this.#names(payout);
        await this.#editCards(payout, names, undefined);
        return this.#tellPayer(payout, names, rejectionReasonNotice);
      }
    }
  }

  /**
   * An approved payout moved on (settled, or its outcome became unknown): every card's
   * "Now: …" line follows it, the deciding approver's own card too. Best effort.
   */
  async followState(payout: Payout): Promise<void> {
    if (payout.approvedBy === undefined) return;
    await this.#editCards(payout, await this.#names(payout), undefined, { status: true });
  }

  /**
   * A card to every approver and admin but the initiator, each remembered. Those who have
   * one already (a retry) are skipped; one who blocked the bot is logged and skipped; any
   * other failure is thrown once the rest were tried, for the notifier to try again.
   */
  async #sendCards(payout: Payout): Promise<void> {
    const { stores, telegram, logger } = this.#options;
    if (payout.state !== "awaiting_approval") return;
    const approvers = decidersOf(await stores.staff.list(), payout);
    const done = new Set((await stores.cards.list(payout.id)).map((card) => card.chatId));
    const duplicateOf = this.#options.duplicateOf ?? (async () => undefined);
    const { names, duplicate } = await cardFacts(stores.profiles, duplicateOf, payout);
    let retry: Error | undefined;
    for (const { userId } of approvers) {
      if (done.has(userId)) continue;
      const t = await this.#translator(userId);
      const card = approvalCard(t, payout, names, { duplicate });
      const view = withPinApprove(t, card, payout, this.#options.stepUp);
      try {
        const sent = await sendView(telegram, userId, view);
        await stores.cards.add(payout.id, { chatId: userId, messageId: sent.message_id });
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

  /**
   * A signature that is not the last: every card (the signer's too, which may be in the
   * Mini App) and the payer's prompt show the rule, who signed and when. Best effort; a
   * payout decided since shows its decision through its own notice.
   */
  async #showSignatures(payout: Payout): Promise<void> {
    if (payout.state !== "awaiting_approval") return;
    const { stores, telegram, logger, timeZone } = this.#options;
    const duplicateOf = this.#options.duplicateOf ?? (async () => undefined);
    const { names, duplicate } = await cardFacts(stores.profiles, duplicateOf, payout);
    for (const card of await stores.cards.list(payout.id)) {
      const t = await this.#translator(card.chatId);
      const view = withPinApprove(
        t,
        approvalCard(t, payout, names, { duplicate }),
        payout,
        this.#options.stepUp,
      );
      await editMessageView(telegram, card.chatId, card.messageId, view).catch((error: unknown) =>
        logger.debug({ err: error, payoutId: payout.id }, "could not edit an approval card"),
      );
    }
    if (payout.messageId === undefined) return;
    const t = translator(payout.locale, timeZone);
    const approvers = decidersOf(await stores.staff.list(), payout).map((m) => m.userId);
    const waiting = await payerWaitingView(t, stores.profiles, payout, approvers);
    const text = [waiting.text, ...signatureLines(t, payout, names)].join("\n");
    await editMessageView(telegram, payout.chatId, payout.messageId, { ...waiting, text }).catch(
      (error: unknown) =>
        logger.debug({ err: error, payoutId: payout.id }, "could not edit the prompt"),
    );
  }

  /** Every card of `payout` shows what became of it (but `skipChatId`'s). Best effort. */
  async #editCards(
    payout: Payout,
    names: Names,
    skipChatId: number | undefined,
    options: { status?: boolean } = {},
  ): Promise<void> {
    const { stores, telegram, logger } = this.#options;
    for (const card of await stores.cards.list(payout.id)) {
      if (card.chatId === skipChatId) continue;
      const view = approvalCard(await this.#translator(card.chatId), payout, names, options);
      await editMessageView(telegram, card.chatId, card.messageId, view).catch((error: unknown) =>
        logger.debug({ err: error, payoutId: payout.id }, "could not edit an approval card"),
      );
    }
  }

  /** The payer's prompt edited to what it is now, and `notice` pushed (what must arrive). */
  async #tellPayer(
    payout: Payout,
    names: Names,
    notice: (t: Translate, payout: Payout, names: Names) => View,
  ): Promise<void> {
    const { telegram, logger, timeZone } = this.#options;
    const t = translator(payout.locale, timeZone);
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

  #names(payout: Payout): Promise<Map<number, string>> {
    return payoutPeopleNames(this.#options.stores.profiles, payout);
  }

  #translator(userId: number): Promise<Translate> {
    return translatorFor(this.#options.stores, userId, this.#options.timeZone);
  }
}
