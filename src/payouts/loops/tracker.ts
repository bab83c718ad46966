/**
 * Polling as the safety net: every pending payout sits in a shared schedule (DueQueue)
 * and is re-read with `GET /payments/{id}` at growing intervals until the API reports a
 * final status. Replicas share the schedule; a claim is a lease, so a payout is polled
 * by one replica at a time and a dead replica's claims come back by themselves.
 */

import type { Logger } from "../../logger.js";
import { silentLogger } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import { noticeKey } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import { PaymentApiError, PaymentClientError } from "../../payments/errors.js";
import type { Stores } from "../../store/types.js";
import type { Settlement } from "../settlement.js";
import { BackgroundRunner, IDLE_ROUND, restingPauseMs } from "./runner.js";

export interface TrackerOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  settlement: Settlement;
  stores: Stores;
  logger?: Logger;
  /** First delay after submission (STATUS_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** Longest delay between two polls. Default 15 min. */
  maxPollIntervalMs?: number;
  /** Growth of the delay per poll. Default 1.6. */
  backoffFactor?: number;
  /**
   * After this long pending, the payer and admins are told the payout looks stuck, and it
   * is polled hourly from then on.
   */
  stuckAfterMs: number;
  /** After this long pending (the retention), polling stops for good. */
  stopAfterMs: number;
  /** A payout left in `submitting` longer than this (a crash mid-request) becomes `unknown`. */
  submittingLimitMs: number;
  /** How often the schedule is checked. Default: a quarter of the poll interval, at most 1 s. */
  tickMs?: number;
  /**
   * After a tick that polled nothing, rest this long instead of `tickMs`, or until the next
   * poll is due if sooner (merchant runtimes: an idle merchant costs Redis next to nothing).
   * Default: no rest, every tick reads the schedule.
   */
  restMs?: number;
  /** How long a claim on a payout lasts before another replica may take it. Default 60 s. */
  leaseMs?: number;
  batchSize?: number;
  now?: () => number;
  /**
   * Called after a notice was queued in the outbox (a payout that looks stuck, or one
   * found stranded in `submitting`), to deliver it at once.
   */
  onNoticeQueued?: () => void;
  random?: () => number;
}

const RESUME_EVERY_MS = 60_000;
/** Poll interval of a payout past the stuck limit: it will not settle in minutes now. */
const SLOW_POLL_MS = 60 * 60_000;
const RESUME_BATCH = 500;

/**
 * Delay before poll number `pollCount + 1`: base × factor^pollCount, capped, with ±10%
 * jitter so replicas and payouts created together spread out.
 */
export function nextPollDelayMs(
  pollCount: number,
  baseMs: number,
  factor: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const raw = Math.min(capMs, baseMs * factor ** pollCount);
  return Math.round(raw * (0.9 + 0.2 * random()));
}

export class PayoutTracker {
  readonly #options: Required<Omit<TrackerOptions, "logger" | "metrics" | "restMs">>;
  readonly #log: Logger;
  readonly #runner: BackgroundRunner;
  /** Set by stop(): a tracker never started still polls when `tick` is called by hand. */
  #stopped = false;
  #lastResumeMs = 0;

  constructor(options: TrackerOptions) {
    this.#log = options.logger ?? silentLogger;
    // `??` per field: an option passed as undefined must not erase its default.
    this.#options = {
      ...options,
      maxPollIntervalMs: options.maxPollIntervalMs ?? 15 * 60_000,
      backoffFactor: options.backoffFactor ?? 1.6,
      tickMs:
        options.tickMs ?? Math.min(1000, Math.max(20, Math.floor(options.pollIntervalMs / 4))),
      leaseMs: options.leaseMs ?? 60_000,
      batchSize: options.batchSize ?? 20,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      onNoticeQueued: options.onNoticeQueued ?? (() => {}),
    };
    const { restMs: rest } = options;
    const { tickMs, now } = this.#options;
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "tracking tick",
      logger: this.#log,
      tickMs: this.#options.tickMs,
      round: async () => {
        const polled = await this.tick();
        return polled === 0 && rest ? IDLE_ROUND : polled;
      },
      ...(rest
        ? {
            idlePauseMs: () =>
              restingPauseMs({ restMs: rest, tickMs, now }, () => this.#nextDueAtMs()),
          }
        : {}),
    });
  }

  /**
   * When the next round has work, for a resting tracker: the earliest poll due (a claim held
   * by a replica that died is due again when its lease ends), or, while a payout is
   * `submitting`, the next look for stranded ones (its sender may die mid-request).
   */
  async #nextDueAtMs(): Promise<number | null> {
    const { stores, submittingLimitMs } = this.#options;
    const [pollAtMs, submitting] = await Promise.all([
      stores.tracking.earliestDueAtMs(),
      stores.payouts.idsInState("submitting"),
    ]);
    if (submitting.length === 0) return pollAtMs;
    const resumeAtMs = this.#lastResumeMs + Math.min(RESUME_EVERY_MS, submittingLimitMs);
    return pollAtMs === null ? resumeAtMs : Math.min(pollAtMs, resumeAtMs);
  }

  /** Picks up what a previous run left (pending and stranded payouts), then polls on a timer. */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.resume();
    this.#runner.start();
  }

  /** Stops polling and waits for the poll in progress. Leases lapse by themselves. */
  /** Runs the next tick now (a payout just went pending here: its rest ends). */
  wake(): void {
    this.#runner.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#runner.stop();
  }

  /** Every pending payout must be in the schedule; `submitting` ones past the limit become unknown. */
  async resume(): Promise<void> {
    const { stores, now } = this.#options;
    this.#lastResumeMs = now();
    // Ids only, in batches: thousands of pending payouts must not all sit in memory at once.
    const pendingIds = await stores.payouts.idsInState("pending");
    for (let start = 0; start < pendingIds.length; start += RESUME_BATCH) {
      const batch = pendingIds.slice(start, start + RESUME_BATCH);
      const due = await stores.tracking.dueAtMany(batch);
      const missing = batch.filter((_, index) => due[index] === null);
      // A payout whose polling was stopped is not in the schedule on purpose: read the few
      // missing ones to tell them from payouts that fell out of it.
      const payouts = await Promise.all(missing.map((id) => stores.payouts.get(id)));
      const lost = missing.filter((_, index) => !payouts[index]?.trackingStoppedAtMs);
      await Promise.all(lost.map((id) => stores.tracking.schedule(id, now())));
    }
    for (const payout of await stores.payouts.listInState("submitting")) {
      // The send time is stamped by the last check before the request left.
      const since = payout.sentAtMs ?? payout.submittedAtMs ?? payout.updatedAtMs;
      if (now() - since < this.#options.submittingLimitMs) continue;
      const result = await stores.payouts.transition(
        payout.id,
        "lost",
        { errorMessage: "the bot stopped while the request was being sent" },
        { notices: [{ kind: "attention", payoutId: payout.id, reason: "stranded" }] },
      );
      if (result.ok && result.applied) {
        this.#log.error({ payoutId: payout.id }, "payout stranded in submitting is now unknown");
        this.#options.onNoticeQueued();
      }
    }
  }

  /** One round: polls every payout that is due (at most `batchSize`). */
  async tick(): Promise<number> {
    const { stores, now, batchSize, leaseMs } = this.#options;
    // Another replica may have died mid-request: look for stranded payouts now and then,
    // and at least as often as the limit, so none stays stranded much past it.
    const resumeEveryMs = Math.min(RESUME_EVERY_MS, this.#options.submittingLimitMs);
    if (now() - this.#lastResumeMs >= resumeEveryMs) await this.resume();
    if (this.#stopped) return 0;
    const ids = await stores.tracking.claimDue(now(), batchSize, leaseMs);
    let polled = 0;
    for (const id of ids) {
      // Stopping: hand the rest back at once instead of leaving them leased.
      if (this.#stopped) await stores.tracking.schedule(id, now());
      else {
        await this.pollOne(id);
        polled += 1;
      }
    }
    return polled;
  }

  private async pollOne(id: string): Promise<void> {
    const { stores, settlement, now } = this.#options;
    let result: Awaited<ReturnType<Settlement["settle"]>>;
    try {
      result = await settlement.settle(id);
    } catch (error) {
      await this.retryLater(id, error);
      return;
    }
    // A settled payout was taken off the schedule by `settle` itself.
    if (result.outcome === "settled") return;
    if (result.outcome === "not_tracked") {
      await stores.tracking.remove(id);
      return;
    }
    const payout = result.payout;
    const pollCount = (payout.pollCount ?? 0) + 1;
    const { pollIntervalMs, backoffFactor, maxPollIntervalMs, random } = this.#options;
    const delay = nextPollDelayMs(
      pollCount,
      pollIntervalMs,
      backoffFactor,
      maxPollIntervalMs,
      random,
    );
    const since = payout.submittedAtMs ?? payout.createdAtMs;
    if (now() - since >= this.#options.stopAfterMs) {
      await this.stopTracking(payout);
      return;
    }
    const slow = now() - since >= this.#options.stuckAfterMs;
    const stuck = slow && !payout.stuckReportedAtMs;
    // Queued before the mark that it was: a crash between the two repeats the notice
    // rather than lose it. A batch's row is reported in its batch's summary instead.
    if (stuck && payout.batchId === undefined) {
      this.#log.warn({ payoutId: id }, "payout still pending after the stuck limit");
      await stores.outbox.schedule(
        noticeKey({ kind: "attention", payoutId: id, reason: "stuck" }),
        now(),
      );
    }
    // One write for the poll count and, the first time, the stuck mark.
    await stores.payouts.update(id, {
      pollCount,
      ...(stuck ? { stuckReportedAtMs: now() } : {}),
    });
    await stores.tracking.schedule(id, now() + (slow ? Math.max(delay, SLOW_POLL_MS) : delay));
    if (stuck) this.#options.onNoticeQueued();
  }

  /** Still pending at the retention: polling stops, the payout stays for a person to see. */
  private async stopTracking(payout: Payout): Promise<void> {
    const { stores, now } = this.#options;
    await stores.payouts.update(payout.id, { trackingStoppedAtMs: now() });
    await stores.tracking.remove(payout.id);
    this.#log.error(
      { payoutId: payout.id, paymentId: payout.paymentId },
      "payout still pending at the retention; polling stopped",
    );
  }

  /** The API did not answer usefully: try again later, honouring Retry-After on a 429. */
  private async retryLater(id: string, error: unknown): Promise<void> {
    const { stores, now, pollIntervalMs } = this.#options;
    const retryAfterMs = error instanceof PaymentApiError ? (error.retryAfterMs ?? 0) : 0;
    const delay = Math.max(pollIntervalMs, retryAfterMs);
    this.#log.warn(
      { payoutId: id, err: error, retryInMs: delay, known: error instanceof PaymentClientError },
      "status poll failed",
    );
    await stores.tracking.schedule(id, now() + delay);
  }
}
