/**
 * What is told after the fact about a step-up PIN, on Telegram (see TelegramMessenger): a
 * reset to the person and to every admin (naming who reset it, or the console), the first
 * PIN set after a reset to every admin, and wrong tries to the person at their next right
 * one. Each in the reader's language. The lock's alert is the reports' (reports.ts).
 */
import type { Telegram } from "telegraf";
import type { Translate } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import type { PinNotice } from "../../payouts/loops/notifier.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import { toDeliveryError } from "../telegram/failures.js";
import { sendView } from "../telegram/reply.js";
import { type Names, personName } from "../views/common.js";
import { namesOf, translatorFor } from "./people.js";

export interface PinDeliveriesOptions {
  telegram: Telegram;
  stores: Stores;
  logger: Logger;
  timeZone: string;
}

export class PinDeliveries {
  readonly #options: PinDeliveriesOptions;

  constructor(options: PinDeliveriesOptions) {
    this.#options = options;
  }

  /**
   * The person's message first (a reset, wrong tries), then the admins' (a reset, a
   * renewal). One who cannot be reached is logged and the others still get theirs; a
   * passing refusal is thrown once the rest were told, for the notifier to try again.
   */
  async deliver(notice: PinNotice): Promise<void> {
    const { stores } = this.#options;
    const byUserId = notice.kind === "pin_reset" ? notice.byUserId : 0;
    const names = await namesOf(stores.profiles, [notice.userId, byUserId]);
    let retry: Error | undefined;
    const send = async (chatId: number, text: (t: Translate) => string) => {
      try {
        const t = await translatorFor(stores, chatId, this.#options.timeZone);
        await sendView(this.#options.telegram, chatId, { text: text(t) });
      } catch (error) {
        const failure = toDeliveryError(error);
        this.#options.logger.warn({ err: error, chatId, notice: notice.kind }, "PIN notice");
        if (!failure.permanent) retry = failure;
      }
    };
    const toPerson = personText(notice, names);
    if (toPerson) await send(notice.userId, toPerson);
    const toAdmins = adminText(notice, names);
    if (toAdmins) {
      const admins = (await stores.staff.list()).filter(
        (member) => may(member, "receive_alerts") && member.userId !== notice.userId,
      );
      for (const admin of admins) await send(admin.userId, toAdmins);
    }
    if (retry) throw retry;
  }
}

/** Who reset it, as the reader reads it: a name (escaped by `t`), or the console. */
function resetBy(t: Translate, names: Names, byUserId: number): string {
  return byUserId === 0 ? t.plain("pin.reset_by_console") : personName(t, names, byUserId);
}

function personText(notice: PinNotice, names: Names): ((t: Translate) => string) | null {
  switch (notice.kind) {
    case "pin_reset":
      return (t) => t("pin.reset_you", { by: resetBy(t, names, notice.byUserId) });
    case "pin_wrong_tries":
      return (t) =>
        t("pin.wrong_tries_you", { count: notice.count, time: t.time(notice.lastAtMs) });
    case "pin_renewed":
      return null;
  }
}

function adminText(notice: PinNotice, names: Names): ((t: Translate) => string) | null {
  const who = (t: Translate) => ({ name: personName(t, names, notice.userId), id: notice.userId });
  switch (notice.kind) {
    case "pin_reset":
      return (t) => t("pin.reset_admins", { ...who(t), by: resetBy(t, names, notice.byUserId) });
    case "pin_renewed":
      return (t) => t("pin.renewed_admins", who(t));
    case "pin_wrong_tries":
      return null;
  }
}
