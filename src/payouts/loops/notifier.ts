/**
 * The one way out to people for what they are told after the fact. Notices are queued in
 * the outbox (a final status in the same atomic step as the settlement; see
 * PayoutStore.transition); this loop reads each notice's subject and hands it to the
 * messenger, retries what Telegram refused for a while (429 with retry_after, 5xx,
 * network), and gives up on users who blocked the bot.
 */

import type { Logger } from "../../logger.js";
import { silentLogger } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { Batch } from "../../model/batch.js";
import {
  type ApprovalNoticeKind,
  type AttentionReason,
  type BatchNoticeKind,
  type Notice,
  parseNoticeKey,
  type ScheduleNoticeKind,
} from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import type { Role } from "../../model/roles.js";
import type { Schedule, ScheduleRun } from "../../model/schedule.js";
import type { ClaimedNotice, Stores } from "../../store/types.js";
import { schedulesStoppedBy } from "../schedule/standing.js";
import { BackgroundRunner, IDLE_ROUND, restingPauseMs } from "./runner.js";

/** Why a message could not be delivered, and whether trying again can help. */
export class DeliveryError extends Error {
  readonly retryAfterMs: number | undefined;
  readonly permanent: boolean;

  constructor(
    message: string,
    options: { permanent: boolean; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = "DeliveryError";
    this.permanent = options.permanent;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** An operator's operation went down or came back, as the notice tells it. */
export type AvailabilityAlert = Extract<Notice, { kind: "availability" }>;

/** A notice with its subject as it is now, ready to be written. */
export type Delivery =
  /**
   * `numberSaved`: whether its number was in the address book when claimed (undefined: not
   * read). `finalTry`: the notice's last attempt before it is dropped (maxAttempts): what
   * could wait (the prompt's edit refused for flood) no longer holds back what matters.
   */
  | { kind: "settled"; payout: Payout; numberSaved?: boolean; finalTry?: boolean }
  | { kind: "attention"; payout: Payout; reason: AttentionReason }
  /** The admins' summary of `day` (YYYY-MM-DD), written from the stores when delivered. */
  | { kind: "digest"; day: string }
  | { kind: "availability"; alert: AvailabilityAlert }
  | { kind: ApprovalNoticeKind; payout: Payout }
  /** A batch's preview, progress, summary, approval card or decision, from the batch now. */
  | { kind: BatchNoticeKind; batch: Batch }
  /** The events' receiver answered 410 Gone: the admins are told events are off. */
  | { kind: "events_disabled"; atMs: number }
  /**
   * Someone lost the standing to pay: the change, their role now (null: not staff), and
   * what of theirs that change cancelled.
   */
  | {
      kind: "standing_lost";
      change: StandingLost;
      role: Role | null;
      cancelled: Payout[];
      /** Their schedules the change cancelled or paused. */
      schedules: Schedule[];
    }
  /** A schedule and one of its runs (null: about the schedule), as they are now. */
  | {
      kind: "schedule";
      what: ScheduleNoticeKind;
      schedule: Schedule;
      run: ScheduleRun | null;
    }
  /** A staff member's step-up PIN was locked: the admins are alerted. */
  | { kind: "pin_locked"; userId: number; untilMs: number }
  /** A PIN was reset, set anew after a reset, or typed right after unseen wrong tries. */
  | PinNotice;

/** What a PIN's reset, renewal or unseen wrong tries tell (as queued: facts, no subject). */
export type PinNotice = Extract<Notice, { kind: "pin_reset" | "pin_renewed" | "pin_wrong_tries" }>;

/** A staff change that took away someone's standing to pay (see model/notice.ts). */
export type StandingLost = Extract<Notice, { kind: "standing_lost" }>;

/** How far back a person's payouts are read for what their staff change cancelled. */
const STANDING_READ_LIMIT = 100;

/** What a delivery is about, for the logs. */
function subjectOf(delivery: Delivery): Record<string, string | number> {
  switch (delivery.kind) {
    case "digest":
      return { day: delivery.day };
    case "availability":
      return { operator: delivery.alert.operator, operation: delivery.alert.operation };
    case "events_disabled":
      return { atMs: delivery.atMs };
    case "pin_locked":
      return { userId: delivery.userId, untilMs: delivery.untilMs };
    case "pin_reset":
    case "pin_renewed":
    case "pin_wrong_tries":
      return { userId: delivery.userId, atMs: delivery.atMs };
    case "batch_preview":
    case "batch_progress":
    case "batch_done":
    case "batch_decided":
    case "batch_approval_requested":
    case "batch_approval_decided":
    case "batch_approval_signed":
      return { batchId: delivery.batch.id, state: delivery.batch.state };
    case "standing_lost":
      return { userId: delivery.change.userId, cancelled: delivery.cancelled.length };
    case "schedule":
      return { scheduleId: delivery.schedule.id, what: delivery.what };
    default:
      return { payoutId: delivery.payout.id, state: delivery.payout.state };
  }
}

/** How people are reached (Telegram, in src/bot/messenger/messenger.ts). */
export interface Messenger {
  /**
   * Writes `delivery` to everyone it concerns, each in their language: a final status to
   * the payer (their prompt edited, and a new message that makes the phone buzz); a
   * payout that needs a person to the payer (not for a mismatch) and the admins; the
   * digest to the admins; an availability alert to ALERT_CHAT_ID or the admins; an
   * approval's request, decision, outcome and reason to the approvers and the payer.
   * Throws a DeliveryError when the message that matters could not be sent, or (a final
   * status, before its push) when the prompt's edit was refused for flood: the retry then
   * makes the edit, then the push.
   */
  deliver(delivery: Delivery): Promise<void>;
}

export interface NotifierOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  stores: Stores;
  messenger: Messenger;
  logger?: Logger;
  /** How often the outbox is checked when nothing wakes the loop. Default 500 ms. */
  tickMs?: number;
  /**
   * After a round that delivered nothing, rest this long instead of `tickMs`, or until the
   * next notice (a retry) is due if sooner; a notice queued in this process wakes the loop at
   * once (merchant runtimes). Default: no rest.
   */
  restMs?: number;
  /**
   * How long a notice claimed by this notifier is hidden from the others. It must outlast
   * a delivery at its worst (two Telegram calls at `callTimeoutMs` each, and Redis), or a
   * slow Telegram would let another replica take the notice and send it twice. Default 60 s.
   */
  leaseMs?: number;
  /** The longest one Telegram call can take (the messenger's deadline). Default 10 s. */
  callTimeoutMs?: number;
  /** Attempts before a notice is dropped (logged). Default 12. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to 10 min. Default 2 s. */
  retryBaseMs?: number;
  now?: () => number;
}

/** Telegram calls of one delivery to one person at most: an edit and a push message. */
const CALLS_PER_DELIVERY = 2;
/** Room in a lease for the Redis reads and writes of one delivery. */
const LEASE_MARGIN_MS = 1000;

export class Notifier {
  readonly #options: Required<Omit<NotifierOptions, "logger" | "metrics" | "restMs">>;
  readonly #log: Logger;
  readonly #attempts = new Map<string, number>();
  readonly #runner: BackgroundRunner;
  /** Set by stop(): a drain in progress hands the rest over instead of going on. */
  #stopping = false;

  constructor(options: NotifierOptions) {
    this.#log = options.logger ?? silentLogger;
    // `??` per field: an option passed as undefined must not erase its default.
    this.#options = {
      ...options,
      tickMs: options.tickMs ?? 500,
      leaseMs: options.leaseMs ?? 60_000,
      maxAttempts: options.maxAttempts ?? 12,
      retryBaseMs: options.retryBaseMs ?? 2000,
      callTimeoutMs: options.callTimeoutMs ?? 10_000,
      now: options.now ?? Date.now,
    };
    const { leaseMs, callTimeoutMs, now } = this.#options;
    const { restMs: rest } = options;
    if (leaseMs <= CALLS_PER_DELIVERY * callTimeoutMs + LEASE_MARGIN_MS) {
      throw new RangeError(
        `notifier lease (${leaseMs} ms) must outlast a delivery at the Telegram call deadline (${CALLS_PER_DELIVERY} × ${callTimeoutMs} ms)`,
      );
    }
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "notification round",
      logger: this.#log,
      tickMs: this.#options.tickMs,
      round: async () => {
        const handled = await this.drain();
        return handled === 0 && rest ? IDLE_ROUND : handled;
      },
      ...(rest
        ? {
            idlePauseMs: () =>
              restingPauseMs({ restMs: rest, tickMs: this.#options.tickMs, now }, () =>
                options.stores.outbox.earliestDueAtMs(),
              ),
          }
        : {}),
    });
  }

  start(): void {
    this.#stopping = false;
    this.#runner.start();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#runner.stop();
  }

  /** Checks the outbox now (a notice was just queued) instead of at the next tick. */
  wake(): void {
    this.#runner.wake();
  }

  /**
   * Delivers every notice that is due; returns how many were handled. Each is claimed
   * just before it is delivered, one at a time: a lease then covers one delivery, however
   * many are waiting behind it.
   */
  async drain(): Promise<number> {
    const { stores, now, leaseMs } = this.#options;
    let handled = 0;
    // The writes that close a delivery go out with the claim of the next notice, in one
    // round trip: Redis runs them in order, so a notice removed is never claimed again.
    let closing: Promise<void> = Promise.resolve();
    for (;;) {
      // A payer's notice comes with its payout, read in the claim's own step.
      const [claimed] = await Promise.all([stores.outbox.claimNext(now(), leaseMs), closing]);
      if (claimed === null) return handled;
      ({ closing } = await this.#deliver(claimed));
      handled += 1;
      if (this.#stopping) {
        await closing;
        return handled;
      }
    }
  }

  /**
   * The notice's subject as it is now, or null when there is nothing (left) to tell.
   * `claimed`: the payout read with the claim (undefined: not read, read it here).
   */
  async #read(notice: Notice, claimed: ClaimedNotice): Promise<Delivery | null> {
    if (notice.kind === "digest") return notice;
    if (notice.kind === "availability") return { kind: "availability", alert: notice };
    if (notice.kind === "events_disabled") return notice;
    if (notice.kind === "pin_locked") return notice;
    if (
      notice.kind === "pin_reset" ||
      notice.kind === "pin_renewed" ||
      notice.kind === "pin_wrong_tries"
    ) {
      return notice;
    }
    if ("batchId" in notice) {
      const batch = await this.#options.stores.batches.get(notice.batchId);
      return batch ? { kind: notice.kind, batch } : null;
    }
    if (notice.kind === "standing_lost") return this.#standing(notice);
    if (notice.kind === "schedule") return this.#schedule(notice);
    // A payer's notice came with its payout (null: gone), read in the claim's step.
    const payout =
      claimed.payout === undefined
        ? await this.#options.stores.payouts.get(notice.payoutId)
        : claimed.payout;
    if (!payout) return null;
    if (notice.kind === "settled") {
      // Told once: a notice queued again after it was delivered is dropped.
      if (payout.notifiedAtMs !== undefined) return null;
      const { numberSaved } = claimed;
      const finalTry = (this.#attempts.get(claimed.key) ?? 0) + 1 >= this.#options.maxAttempts;
      return {
        kind: "settled",
        payout,
        ...(numberSaved === undefined ? {} : { numberSaved }),
        ...(finalTry ? { finalTry } : {}),
      };
    }
    if (notice.kind === "attention") return { kind: "attention", payout, reason: notice.reason };
    return { kind: notice.kind, payout };
  }

  async #schedule(notice: Extract<Notice, { kind: "schedule" }>): Promise<Delivery | null> {
    const { schedules } = this.#options.stores;
    const schedule = await schedules.get(notice.scheduleId);
    const run =
      notice.runKey === "-" ? null : await schedules.run(notice.scheduleId, notice.runKey);
    return schedule && { kind: "schedule", what: notice.what, schedule, run };
  }

  /** The staff change, and the payouts it cancelled (its person's latest ones, read now). */
  async #standing(change: StandingLost): Promise<Delivery> {
    const { stores } = this.#options;
    const [role, { items }, schedules] = await Promise.all([
      stores.staff.get(change.userId),
      stores.payouts.list({ userId: change.userId, offset: 0, limit: STANDING_READ_LIMIT }),
      schedulesStoppedBy(stores, change),
    ]);
    const cancelled = items.filter(
      (payout) =>
        payout.state === "cancelled" &&
        payout.cancelledBy === change.byUserId &&
        payout.decidedAtMs === change.atMs,
    );
    return { kind: "standing_lost", change, role, cancelled, schedules };
  }

  /**
   * Delivers one claimed notice; answers its closing writes (the notice off the outbox, a
   * payer's notice marked told), sent but not waited for: the caller waits for them with
   * its next claim.
   */
  async #deliver(claimed: ClaimedNotice): Promise<{ closing: Promise<void> }> {
    const { stores, messenger, now } = this.#options;
    const { key } = claimed;
    const notice = parseNoticeKey(key);
    if (!notice) this.#log.error({ key }, "outbox entry names no notice; dropped");
    const delivery = notice && (await this.#read(notice, claimed));
    if (!delivery) return { closing: stores.outbox.remove(key) };
    try {
      await messenger.deliver(delivery);
    } catch (error) {
      await this.#failed(key, subjectOf(delivery), error);
      return { closing: Promise.resolve() };
    }
    // Marked told before it leaves the outbox (same connection, in this order): a notice
    // queued again is then dropped, never told twice.
    const marked =
      delivery.kind === "settled"
        ? stores.payouts.update(delivery.payout.id, { notifiedAtMs: now() })
        : null;
    const removed = stores.outbox.remove(key);
    const closing = Promise.all([marked, removed]).then(() => undefined);
    this.#attempts.delete(key);
    this.#log.info(
      { ...subjectOf(delivery), notice: delivery.kind },
      delivery.kind === "settled" ? "payer notified" : `${delivery.kind} notice sent`,
    );
    return { closing };
  }

  async #failed(
    key: string,
    subject: Record<string, string | number>,
    error: unknown,
  ): Promise<void> {
    const { stores, now, maxAttempts, retryBaseMs } = this.#options;
    const attempts = (this.#attempts.get(key) ?? 0) + 1;
    const permanent = error instanceof DeliveryError && error.permanent;
    if (permanent || attempts >= maxAttempts) {
      this.#log.error({ notice: key, ...subject, err: error, attempts }, "notification dropped");
      this.#attempts.delete(key);
      await stores.outbox.remove(key);
      return;
    }
    this.#attempts.set(key, attempts);
    const backoffMs = Math.min(600_000, retryBaseMs * 2 ** (attempts - 1));
    const retryAfterMs = error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = Math.max(backoffMs, retryAfterMs);
    this.#log.warn(
      { notice: key, ...subject, err: error, attempts, retryInMs: delayMs },
      "notification failed; will retry",
    );
    await stores.outbox.schedule(key, now() + delayMs);
  }
}
