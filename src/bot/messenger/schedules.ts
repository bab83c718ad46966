/**
 * A schedule's notices on Telegram (see TelegramMessenger): a held run's question (Send
 * anyway / Skip), a reminder (Skip this run), a missed run or one that did not go, a pause
 * because its owner may no longer pay (to the owner and every admin), the approvers' cards
 * and, once decided, the owner's answer. Each reader in their language.
 */
import type { Telegram } from "telegraf";
import { type Translate, translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import type { Schedule } from "../../model/schedule.js";
import type { Delivery } from "../../payouts/loops/notifier.js";
import { may } from "../../payouts/policy.js";
import { runsAfter } from "../../payouts/schedule/when.js";
import type { Stores } from "../../store/types.js";
import { toDeliveryError } from "../telegram/failures.js";
import { editMessageView, sendView } from "../telegram/reply.js";
import type { View } from "../views/common.js";
import { personName } from "../views/common.js";
import {
  heldRunView,
  interruptedRunView,
  pausedView,
  reminderView,
  runReportView,
  scheduleApprovalCard,
  scheduleStateView,
} from "../views/schedule.js";
import { type StepUpSettings, withPinSchedule } from "../views/step-up.js";
import { namesOf, translatorFor } from "./people.js";

type ScheduleDelivery = Extract<Delivery, { kind: "schedule" }>;

/** Where a schedule's approval cards are remembered (beside payouts' cards, which never hold ":"). */
export function scheduleCardsKey(schedule: Pick<Schedule, "id" | "expiresAtMs">): string {
  // One set of cards per request for approval (its expiry marks it): a Resume asked again
  // later sends new cards rather than finding the first request's.
  return `schedule:${schedule.id}:${schedule.expiresAtMs}`;
}

export interface ScheduleDeliveriesOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
  /** A big schedule's card opens the Mini App, where the approver types their PIN. */
  stepUp?: StepUpSettings | undefined;
}

export class ScheduleDeliveries {
  readonly #options: ScheduleDeliveriesOptions;

  constructor(options: ScheduleDeliveriesOptions) {
    this.#options = options;
  }

  async deliver(delivery: ScheduleDelivery): Promise<void> {
    const { schedule, run } = delivery;
    const owner = translator(schedule.locale, this.#options.timeZone);
    switch (delivery.what) {
      case "run_held":
        if (run?.state === "held")
          await this.#send(schedule.chatId, heldRunView(owner, schedule, run));
        return;
      case "run_reminder":
        if (run?.state === "due")
          await this.#send(schedule.chatId, reminderView(owner, schedule, run));
        return;
      case "run_missed":
        if (run) {
          await this.#send(
            schedule.chatId,
            runReportView(owner, schedule, run.atMs, "schedule.missed"),
          );
        }
        return;
      case "run_not_sent":
        if (run) {
          await this.#send(
            schedule.chatId,
            runReportView(owner, schedule, run.atMs, "schedule.not_sent"),
          );
        }
        return;
      case "run_interrupted":
        if (run) await this.#send(schedule.chatId, interruptedRunView(owner, schedule, run));
        return;
      case "paused":
        return this.#paused(delivery);
      case "approval_requested":
        return this.#cards(delivery);
      case "approval_decided":
        return this.#decided(delivery, owner);
      case "approval_signed":
        return this.#editCards(delivery.schedule);
      case "resume_refused":
        await this.#editCards(delivery.schedule);
        await this.#send(delivery.schedule.chatId, {
          text: owner("schedule.decided_resume_refused", { ref: delivery.schedule.id }),
        });
        return;
    }
  }

  async #send(chatId: number, view: View): Promise<void> {
    try {
      await sendView(this.#options.telegram, chatId, view);
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  /** To the owner (if the bot can still reach them) and every admin. */
  async #paused(delivery: ScheduleDelivery): Promise<void> {
    const { stores, timeZone, logger } = this.#options;
    const admins = (await stores.staff.list()).filter((member) => may(member, "manage_staff"));
    const chats = new Set([delivery.schedule.chatId, ...admins.map((member) => member.userId)]);
    for (const chatId of chats) {
      const t = await translatorFor(stores, chatId, timeZone);
      await this.#send(chatId, pausedView(t, delivery.schedule)).catch((error: unknown) =>
        logger.warn({ err: error, chatId }, "could not tell of a paused schedule"),
      );
    }
  }

  /**
   * A card to every approver and admin but the owner, each remembered (as a payout's are) so
   * the decision can be shown on all of them. Those who have one already (a retry) are
   * skipped; one who blocked the bot is logged and skipped; any other failure is thrown once
   * the rest were tried, for the notifier to try again.
   */
  async #cards(delivery: ScheduleDelivery): Promise<void> {
    const { stores, timeZone, logger } = this.#options;
    const { schedule } = delivery;
    if (schedule.state !== "awaiting_approval") return;
    const deciders = (await stores.staff.list()).filter(
      (member) => may(member, "approve") && member.userId !== schedule.ownerId,
    );
    const key = scheduleCardsKey(schedule);
    const done = new Set((await stores.cards.list(key)).map((card) => card.chatId));
    const names = await namesOf(stores.profiles, [schedule.ownerId]);
    const runs = runsAfter(schedule.recurrence, timeZone, Date.now(), 3);
    let retry: Error | undefined;
    for (const member of deciders) {
      if (done.has(member.userId)) continue;
      const t: Translate = await translatorFor(stores, member.userId, timeZone);
      const card = scheduleApprovalCard(t, schedule, runs, personName(t, names, schedule.ownerId));
      // Cards go to the approvers' private chats, where `web_app` buttons are allowed.
      const view = withPinSchedule(
        t,
        card,
        schedule,
        "schedule-approve",
        this.#options.stepUp,
        true,
      );
      try {
        const sent = await sendView(this.#options.telegram, member.userId, view);
        await stores.cards.add(key, { chatId: member.userId, messageId: sent.message_id });
      } catch (error) {
        const failure = toDeliveryError(error);
        logger.warn(
          { err: error, userId: member.userId },
          "could not send a schedule approval card",
        );
        if (!failure.permanent) retry = failure;
      }
    }
    if (retry) throw retry;
  }

  /**
   * Every card shows the decision (but the decider's, edited by their press), no buttons
   * left. Best effort: a card that cannot be edited is logged.
   */
  async #editCards(schedule: Schedule): Promise<void> {
    const { stores, timeZone, logger, telegram } = this.#options;
    const decider = schedule.state === "rejected" ? schedule.changedBy : schedule.approvedBy;
    const signers = (schedule.signatures ?? []).map((signature) => signature.userId);
    const names = await namesOf(stores.profiles, [schedule.ownerId, ...signers]);
    const runs = runsAfter(schedule.recurrence, timeZone, Date.now(), 3);
    for (const card of await stores.cards.list(scheduleCardsKey(schedule))) {
      if (card.chatId === decider) continue;
      const t = await translatorFor(stores, card.chatId, timeZone);
      const owner = personName(t, names, schedule.ownerId);
      const view = scheduleApprovalCard(t, schedule, runs, owner, names);
      await editMessageView(telegram, card.chatId, card.messageId, view).catch((error: unknown) =>
        logger.debug({ err: error, scheduleId: schedule.id }, "could not edit a schedule card"),
      );
    }
  }

  /** The owner is told what the approver decided; the prompt reads it too. */
  async #decided(delivery: ScheduleDelivery, t: Translate): Promise<void> {
    const { schedule } = delivery;
    const key =
      schedule.state === "active" || schedule.state === "paused"
        ? "schedule.decided_approved"
        : schedule.state === "rejected"
          ? "schedule.decided_rejected"
          : "schedule.decided_expired";
    await this.#editCards(schedule);
    if (schedule.messageId !== undefined) {
      const runs = runsAfter(schedule.recurrence, this.#options.timeZone, Date.now(), 3);
      await editMessageView(
        this.#options.telegram,
        schedule.chatId,
        schedule.messageId,
        scheduleStateView(t, schedule, runs),
      ).catch(() => undefined);
    }
    await this.#send(schedule.chatId, { text: t(key, { ref: schedule.id }) });
  }
}
