/**
 * A staff change that took away someone's standing to pay, on Telegram (see
 * TelegramMessenger): the person is told what of theirs was cancelled and why (when the bot
 * can still reach them), and every admin gets one summary, each in their language.
 */
import type { Telegram } from "telegraf";
import { type Translate, translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import { formatPhone } from "../../model/phone.js";
import type { Delivery } from "../../payouts/loops/notifier.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import { toDeliveryError } from "../telegram/failures.js";
import { editMessageView, sendView } from "../telegram/reply.js";
import { money, payoutStateView, personName } from "../views/common.js";
import { namesOf, translatorFor } from "./people.js";

type StandingDelivery = Extract<Delivery, { kind: "standing_lost" }>;

export interface StandingDeliveriesOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
}

/** One line per cancelled payout: its reference, amount, number, and what it was waiting for. */
function cancelledLines(t: Translate, delivery: StandingDelivery): string[] {
  return delivery.cancelled.map((payout) =>
    t("standing.item", {
      ref: payout.id,
      amount: money(t, payout.amount),
      phone: formatPhone(payout.phone),
      was: t(
        payout.approvalExpiresAtMs === undefined ? "standing.was_prompt" : "standing.was_approval",
      ),
    }),
  );
}

/** The person's schedules the change stopped: a heading and one line each (none: nothing). */
function scheduleLines(t: Translate, delivery: StandingDelivery): string[] {
  const { schedules } = delivery;
  if (schedules.length === 0) return [];
  return [
    t("standing.schedules_stopped", { count: schedules.length }),
    ...schedules.map((schedule) =>
      t("standing.schedule_item", {
        ref: schedule.id,
        amount: money(t, schedule.amount),
        phone: formatPhone(schedule.phone),
        what: t(
          schedule.state === "paused" ? "standing.schedule_paused" : "standing.schedule_cancelled",
        ),
      }),
    ),
  ];
}

export class StandingDeliveries {
  readonly #options: StandingDeliveriesOptions;

  constructor(options: StandingDeliveriesOptions) {
    this.#options = options;
  }

  /**
   * To the person (a blocked or never-met person is logged, not retried: they are no longer
   * staff) and to every admin; an admin Telegram refused for a passing reason is thrown for
   * the notifier to try again once the others were told.
   */
  async deliver(delivery: StandingDelivery): Promise<void> {
    const { stores, telegram, logger, timeZone } = this.#options;
    const { change } = delivery;
    const names = await namesOf(stores.profiles, [change.userId, change.byUserId]);
    const byName = (t: Translate) =>
      change.byUserId === 0 ? t("standing.by_env") : personName(t, names, change.byUserId);
    const role = (t: Translate) => (delivery.role ? t(`role.${delivery.role}`) : "");

    const own = await translatorFor(stores, change.userId, timeZone);
    for (const payout of delivery.cancelled) {
      // Its prompt (or "waiting for approval" message) loses its buttons: it reads Cancelled.
      if (payout.messageId === undefined) continue;
      const view = payoutStateView(translator(payout.locale, timeZone), payout);
      await editMessageView(telegram, payout.chatId, payout.messageId, view).catch(
        (error: unknown) => logger.debug({ err: error, payoutId: payout.id }, "prompt not edited"),
      );
    }
    const items = cancelledLines(own, delivery);
    const toPerson = [
      delivery.role === null
        ? own("standing.removed_you", { by: byName(own) })
        : own("standing.demoted_you", { by: byName(own), role: role(own) }),
      items.length > 0
        ? `\n${own("standing.cancelled_yours")}`
        : delivery.schedules.length > 0
          ? ""
          : own("standing.nothing_open"),
      ...items,
      ...scheduleLines(own, delivery),
    ];
    try {
      await sendView(telegram, change.userId, { text: toPerson.join("\n") });
    } catch (error) {
      logger.info({ err: error, userId: change.userId }, "could not tell a former payer");
    }

    const admins = (await stores.staff.list()).filter(
      (member) => may(member, "manage_staff") && member.userId !== change.userId,
    );
    let retry: Error | undefined;
    for (const admin of admins) {
      const t = await translatorFor(stores, admin.userId, timeZone);
      const who = {
        by: byName(t),
        name: personName(t, names, change.userId),
        id: change.userId,
      };
      const lines = [
        delivery.role === null
          ? t("standing.admins_removed", who)
          : t("standing.admins_demoted", { ...who, role: role(t) }),
      ];
      if (delivery.cancelled.length > 0) {
        lines.push(t("standing.admins_cancelled", { count: delivery.cancelled.length }));
        lines.push(...cancelledLines(t, delivery));
      }
      lines.push(...scheduleLines(t, delivery));
      try {
        await sendView(telegram, admin.userId, { text: lines.join("\n") });
      } catch (error) {
        const failure = toDeliveryError(error);
        logger.warn({ err: error, chatId: admin.userId }, "could not send a staff change summary");
        if (!failure.permanent) retry = failure;
      }
    }
    if (retry) throw retry;
  }
}
