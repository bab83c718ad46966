/**
 * The Messenger of the notifier, on Telegram: turns each notice into messages, each in its
 * reader's language. A final status edits the payout's prompt and pushes a new message (an
 * edit does not make the phone buzz); an edit refused for flood holds the push back until the
 * notice's retry (docs/performance.md). The digest and availability alerts go through
 * ReportDelivery (reports.ts); approvals are approvals.ts's, staff changes standing.ts's.
 * Telegram's refusals become DeliveryErrors that say whether trying again can help.
 */
import type { Telegram, TelegramError } from "telegraf";
import { translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import type { AttentionReason } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import type { Delivery, Messenger } from "../../payouts/loops/notifier.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import { DEFAULT_TIME_ZONE } from "../../time.js";
import { isFloodRefusal, toDeliveryError } from "../telegram/failures.js";
import { CONFIRM_EDITS_MAX_MS, PromptWatch } from "../telegram/prompt-watch.js";
import { editMessageView, sendView } from "../telegram/reply.js";
import { payoutStateView, type View } from "../views/common.js";
import { mismatchNotice, settlementNotice, stuckNotice } from "../views/notices.js";
import { saveRecipientKeyboard } from "../views/recipients.js";
import type { StepUpSettings } from "../views/step-up.js";
import type { DuplicateFinder } from "./approval-cards.js";
import { ApprovalDeliveries } from "./approvals.js";
import { BatchDeliveries, type BatchDeliveryOptions } from "./batches.js";
import { translatorFor } from "./people.js";
import { PinDeliveries } from "./pins.js";
import type { ReportDelivery } from "./reports.js";
import { ScheduleDeliveries } from "./schedules.js";
import { StandingDeliveries } from "./standing.js";

export interface TelegramMessengerOptions {
  /** IANA zone of the times in the messages (TIME_ZONE). */
  timeZone?: string;
  /** Delivers the digest and availability alerts (without it, those are logged and dropped). */
  reports?: ReportDelivery;
  /** The payout a payout waiting for approval repeats, for its cards (Approval.duplicateOf). */
  duplicateOf?: DuplicateFinder;
  /** What batch previews and summaries say about limits, approval and stuck rows. */
  batches?: Pick<
    BatchDeliveryOptions,
    "limits" | "approvalThresholdXaf" | "approvalBands" | "stuckAfterHours"
  >;
  /** STEP_UP_THRESHOLD_XAF and WEBAPP_URL: big payouts' approval cards open the Mini App. */
  stepUp?: StepUpSettings | undefined;
  /** The bot's Confirms editing prompts now (one shared object); default: none known. */
  prompts?: PromptWatch;
  /** How long after a final edit it is made again when a Confirm elsewhere may overwrite it. */
  reassertAfterMs?: number;
}

export class TelegramMessenger implements Messenger {
  readonly #telegram: Telegram;
  readonly #stores: Stores;
  readonly #log: Logger;
  readonly #timeZone: string;
  readonly #reports: ReportDelivery | undefined;
  readonly #approvals: ApprovalDeliveries;
  readonly #batches: BatchDeliveries;
  readonly #standing: StandingDeliveries;
  readonly #pins: PinDeliveries;
  readonly #schedules: ScheduleDeliveries;
  readonly #prompts: PromptWatch;
  readonly #reassertAfterMs: number;

  constructor(
    telegram: Telegram,
    stores: Stores,
    logger: Logger,
    options: TelegramMessengerOptions = {},
  ) {
    this.#telegram = telegram;
    this.#stores = stores;
    this.#log = logger;
    this.#timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
    this.#reports = options.reports;
    this.#prompts = options.prompts ?? new PromptWatch();
    this.#reassertAfterMs = options.reassertAfterMs ?? CONFIRM_EDITS_MAX_MS;
    this.#approvals = new ApprovalDeliveries({
      telegram,
      stores,
      logger,
      timeZone: this.#timeZone,
      ...(options.duplicateOf ? { duplicateOf: options.duplicateOf } : {}),
      stepUp: options.stepUp,
    });
    this.#standing = new StandingDeliveries({
      telegram,
      stores,
      logger,
      timeZone: this.#timeZone,
    });
    this.#pins = new PinDeliveries({ telegram, stores, logger, timeZone: this.#timeZone });
    this.#schedules = new ScheduleDeliveries({
      telegram,
      stores,
      logger,
      timeZone: this.#timeZone,
      stepUp: options.stepUp,
    });
    this.#batches = new BatchDeliveries({
      telegram,
      stores,
      logger,
      timeZone: this.#timeZone,
      stuckAfterHours: 24,
      ...options.batches,
      stepUp: options.stepUp,
    });
  }

  async deliver(delivery: Delivery): Promise<void> {
    switch (delivery.kind) {
      case "settled":
        return this.#settled(delivery.payout, delivery.numberSaved, delivery.finalTry === true);
      case "attention":
        return this.#attention(delivery.payout, delivery.reason);
      case "digest":
        if (this.#reports) return this.#reports.digest(delivery.day);
        break;
      case "availability":
        if (this.#reports) return this.#reports.alert(delivery.alert);
        break;
      case "events_disabled":
        if (this.#reports) return this.#reports.eventsDisabled(delivery.atMs);
        break;
      case "batch_preview":
      case "batch_progress":
      case "batch_done":
      case "batch_decided":
      case "batch_approval_requested":
      case "batch_approval_decided":
      case "batch_approval_signed":
        return this.#batches.deliver(delivery.kind, delivery.batch);
      case "standing_lost":
        return this.#standing.deliver(delivery);
      case "schedule":
        return this.#schedules.deliver(delivery);
      case "pin_locked":
        if (this.#reports) return this.#reports.pinLocked(delivery.userId, delivery.untilMs);
        break;
      case "pin_reset":
      case "pin_renewed":
      case "pin_wrong_tries":
        return this.#pins.deliver(delivery);
      default:
        return this.#approvals.deliver(delivery.kind, delivery.payout);
    }
    this.#log.warn({ notice: delivery.kind }, "no one delivers this notice here; dropped");
  }

  /**
   * The prompt edited, then the push. `numberSaved`: read with the notice's claim;
   * undefined: read here if it matters. An edit refused for flood (Telegram's 429 or the
   * pacer's) stops the delivery before the push, as a DeliveryError with its retry_after:
   * the notice is tried again then, edit first, and the push (its last step, after which it
   * is marked told) goes once. On the notice's `finalTry` the push goes without the edit.
   */
  async #settled(
    payout: Payout,
    numberSaved: boolean | undefined,
    finalTry: boolean,
  ): Promise<void> {
    const t = translator(payout.locale, this.#timeZone);
    if (payout.messageId !== undefined) {
      // The payout's own message, final now, offers Save recipient (the push below stays a
      // notice: a button there would be the chat's newest, above a prompt still open).
      const final = payoutStateView(t, payout);
      const view = (await this.#offersSave(payout, numberSaved))
        ? { ...final, keyboard: saveRecipientKeyboard(t, payout.id) }
        : final;
      // Noted before the edit leaves: a Confirm still editing here puts it back after its own.
      const confirm = this.#prompts.noteFinal(payout.chatId, payout.messageId, view);
      const flood = await this.#editPrompt(payout, payout.messageId, view);
      if (flood && !finalTry) throw toDeliveryError(flood);
      if (confirm === "unknown" && this.#prompts.mayBeEditedElsewhere(payout)) {
        // Its Confirm may be another replica's, its "Pending" still on the way: once more.
        const messageId = payout.messageId;
        setTimeout(
          () => void this.#editPrompt(payout, messageId, view),
          this.#reassertAfterMs,
        ).unref();
      }
    }
    // Its approvers' cards said "Now: Pending" since the approval: they follow it too.
    await this.#approvals.followState(payout);
    try {
      await sendView(this.#telegram, payout.chatId, settlementNotice(t, payout));
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  /**
   * Edits the prompt; resolves with the refusal when it was refused for flood (it can be
   * made later), else undefined. Any other failure is logged and let go: the prompt may be
   * gone (deleted, too old to edit), and "not modified" means it already reads so.
   */
  async #editPrompt(
    payout: Payout,
    messageId: number,
    view: View,
  ): Promise<TelegramError | undefined> {
    try {
      await editMessageView(this.#telegram, payout.chatId, messageId, view);
      return undefined;
    } catch (error) {
      if (isFloodRefusal(error)) {
        this.#log.info(
          { err: error, payoutId: payout.id },
          "prompt edit refused for flood; the notice waits for it",
        );
        return error;
      }
      this.#log.debug({ err: error, payoutId: payout.id }, "could not edit the prompt");
      return undefined;
    }
  }

  /**
   * A payout paid to a number that is not saved offers **Save recipient** (not a batch row:
   * its payer hears of it in the batch's summary). The button is a nicety: when the address
   * book cannot be read, the message goes without it.
   */
  async #offersSave(payout: Payout, numberSaved: boolean | undefined): Promise<boolean> {
    if (payout.state !== "success" || payout.kind !== "disbursement") return false;
    if (payout.batchId !== undefined || payout.recipientAlias !== undefined) return false;
    if (numberSaved !== undefined) return !numberSaved;
    try {
      return !(await this.#stores.recipients.isSaved(payout.phone));
    } catch (error) {
      this.#log.debug({ err: error, payoutId: payout.id }, "could not read the address book");
      return false;
    }
  }

  /** To the payer (not for a mismatch) and every admin; one who cannot be reached is logged. */
  async #attention(payout: Payout, reason: AttentionReason): Promise<void> {
    if ((reason === "stranded" || reason === "accepted_late") && payout.messageId !== undefined) {
      // The prompt still says "Sending…": show the payer what it really is now.
      const view = payoutStateView(translator(payout.locale, this.#timeZone), payout);
      await editMessageView(this.#telegram, payout.chatId, payout.messageId, view).catch(
        (error: unknown) =>
          this.#log.debug({ err: error, payoutId: payout.id }, "could not edit the prompt"),
      );
    }
    const admins = (await this.#stores.staff.list()).filter((member) =>
      may(member, "receive_alerts"),
    );
    // A mismatch is for admins: the payer's own prompt already reads "Outcome unknown".
    const payer = reason === "mismatch" ? [] : [payout.chatId];
    const recipients = new Set([...payer, ...admins.map((member) => member.userId)]);
    for (const chatId of recipients) {
      const t =
        chatId === payout.chatId
          ? translator(payout.locale, this.#timeZone)
          : await translatorFor(this.#stores, chatId, this.#timeZone);
      const view =
        reason === "stuck"
          ? stuckNotice(t, payout)
          : reason === "mismatch"
            ? mismatchNotice(t, payout)
            : payoutStateView(t, payout);
      try {
        await sendView(this.#telegram, chatId, view);
      } catch (error) {
        this.#log.warn(
          { err: error, payoutId: payout.id, chatId },
          "could not send an attention notice",
        );
      }
    }
  }
}
