/**
 * How the messenger delivers the reports: the daily digest to every admin, and an
 * availability alert to ALERT_CHAT_ID (or every admin), each in the reader's language.
 * An admin who cannot be reached is logged and the others still get theirs; a message to
 * ALERT_CHAT_ID that Telegram refused is a DeliveryError, so the notifier tries again.
 */
import type { Telegram } from "telegraf";
import type { Translate } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import { isUp } from "../../model/availability.js";
import type { DailyDigest } from "../../payouts/loops/digest.js";
import { weekVolume } from "../../payouts/loops/digest-week.js";
import type { AvailabilityAlert } from "../../payouts/loops/notifier.js";
import { may } from "../../payouts/policy.js";
import { payoutsInState } from "../../store/payout-store.js";
import type { Stores } from "../../store/types.js";
import { toDeliveryError } from "../telegram/failures.js";
import { sendView } from "../telegram/reply.js";
import { personName, type View } from "../views/common.js";
import { availabilityAlertView, digestView } from "../views/digest.js";
import { digestChartCaption, digestChartPng } from "../views/digest-chart.js";
import { eventsDisabledView } from "../views/events.js";
import { namesOf, translatorFor } from "./people.js";

/** Pending payouts read per page when an alert counts them. */
const PENDING_PAGE_SIZE = 500;

export interface ReportDeliveryOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
  digest: DailyDigest;
  /** ALERT_CHAT_ID: where availability alerts go; undefined: every admin. */
  alertChatId: number | undefined;
}

export class ReportDelivery {
  readonly #options: ReportDeliveryOptions;

  constructor(options: ReportDeliveryOptions) {
    this.#options = options;
  }

  /**
   * The digest of `day`, read now, to every admin: first its chart (the last seven days'
   * paid volume, a PNG drawn once per language), then the text. The chart is a courtesy:
   * one that cannot be drawn or sent is logged, and the text still goes.
   */
  async digest(day: string): Promise<void> {
    const { stores, digest, telegram, logger, timeZone } = this.#options;
    const facts = await digest.facts(day);
    const [names, week] = await Promise.all([
      namesOf(stores.profiles, [
        ...facts.attention.map((payout) => payout.initiatorId),
        ...facts.limits.flatMap((limit) => limit.userId ?? []),
        ...facts.staffChanges.flatMap((change) => [change.userId, change.byUserId]),
      ]),
      weekVolume(stores, { day, timeZone, nowMs: facts.toMs }),
    ]);
    const charts = new Map<Translate["locale"], Buffer>();
    const chart = async (chatId: number, t: Translate) => {
      try {
        const png = charts.get(t.locale) ?? (await digestChartPng(t, week));
        charts.set(t.locale, png);
        await telegram.sendPhoto(
          chatId,
          { source: png, filename: `digest-${day}.png` },
          { caption: digestChartCaption(t, week), parse_mode: "HTML" },
        );
      } catch (error) {
        logger.warn({ err: error, chatId, day }, "could not send the digest's chart");
      }
    };
    await this.#toAdmins((t) => digestView(t, facts, names), { day }, chart);
  }

  /** An operation went down or came back: to ALERT_CHAT_ID, else every admin. */
  async alert(alert: AvailabilityAlert): Promise<void> {
    // Counted a page at a time: thousands of pending payouts are never held at once.
    let pending = 0;
    const { payouts } = this.#options.stores;
    for await (const page of payoutsInState(payouts, "pending", PENDING_PAGE_SIZE)) {
      pending += page.filter(
        (payout) => payout.operator === alert.operator && payout.kind === alert.operation,
      ).length;
    }
    const view = (t: Parameters<typeof availabilityAlertView>[0]) =>
      availabilityAlertView(t, alert, isUp(alert.status), pending);
    const chatId = this.#options.alertChatId;
    if (chatId === undefined) {
      await this.#toAdmins(view, { operator: alert.operator, operation: alert.operation });
      return;
    }
    try {
      await sendView(this.#options.telegram, chatId, view(await this.#translatorOf(chatId)));
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  /** The events' receiver answered 410 Gone: every admin is told events are off. */
  async eventsDisabled(atMs: number): Promise<void> {
    await this.#toAdmins((t) => eventsDisabledView(t, atMs), { eventsDisabledAt: String(atMs) });
  }

  /** Someone's step-up PIN was locked after too many wrong tries: every admin is told. */
  async pinLocked(userId: number, untilMs: number): Promise<void> {
    const names = await namesOf(this.#options.stores.profiles, [userId]);
    await this.#toAdmins(
      (t) => ({
        text: t("pin.locked_alert", {
          name: personName(t, names, userId),
          id: userId,
          until: t.time(untilMs),
        }),
      }),
      { pinLockedUser: String(userId) },
    );
  }

  #translatorOf(chatId: number): Promise<Translate> {
    return translatorFor(this.#options.stores, chatId, this.#options.timeZone);
  }

  /**
   * Sends a view to each admin in their language. Fails (to be tried again) only when
   * there were admins and none of them could be reached: a retry then sends nobody a copy.
   */
  async #toAdmins(
    view: (t: Translate) => View,
    subject: Record<string, string>,
    /** Sent before the view (never fails: it handles its own errors). */
    lead?: (chatId: number, t: Translate) => Promise<void>,
  ): Promise<void> {
    const { stores, telegram, logger } = this.#options;
    const admins = (await stores.staff.list()).filter((member) => may(member, "receive_alerts"));
    let failure: unknown;
    let sent = 0;
    for (const admin of admins) {
      try {
        const t = await this.#translatorOf(admin.userId);
        await lead?.(admin.userId, t);
        await sendView(telegram, admin.userId, view(t));
        sent += 1;
      } catch (error) {
        failure = error;
        logger.warn({ err: error, chatId: admin.userId, ...subject }, "could not send a report");
      }
    }
    if (sent === 0 && failure !== undefined) throw toDeliveryError(failure);
  }
}
