/**
 * Tells payers about final statuses. A move into success/failed/canceled queues the
 * payout in the outbox in the same atomic step (see PayoutStore.transition); this loop
 * delivers each one through the messenger, retries what Telegram refused for a while
 * (429 with retry_after, 5xx, network), and gives up on users who blocked the bot.
 */
import type { Logger } from "../logger.js";
import { silentLogger } from "../logger.js";
import type { Payout } from "../model/payout.js";
import type { Stores } from "../store/types.js";
import { FailureStreakLog } from "./failure-log.js";

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

export type AttentionReason = "stuck" | "stranded" | "mismatch" | "accepted_late";

/** How payers and admins are reached (Telegram, in src/bot/messenger.ts). */
export interface Messenger {
  /** Edits the payout's prompt to its final state and pushes a new message to the payer. */
  notifySettled(payout: Payout): Promise<void>;
  /**
   * A payout needs a person: stuck pending, stranded by a crash (now unknown), or answered
   * with a payment that does not match its request (now unknown; admins only).
   */
  notifyAttention(payout: Payout, reason: AttentionReason): Promise<void>;
}

export interface NotifierOptions {
  stores: Stores;
  messenger: Messenger;
  logger?: Logger;
  /** How often the outbox is checked when nothing wakes the loop. Default 500 ms. */
  tickMs?: number;
  /**
   * How long a notice claimed by this notifier is hidden from the others. It must outlast
   * a delivery at its worst (two Telegram calls at `callTimeoutMs` each, and Redis), or a
   * slow Telegram would let another replica take the notice and send it twice. Default 60 s.
   */
  leaseMs?: number;
  /** The longest one Telegram call can take (the messenger's deadline). Default 10 s. */
  callTimeoutMs?: number;
  /** Attempts before a notification is dropped (logged). Default 12. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to 10 min. Default 2 s. */
  retryBaseMs?: number;
  now?: () => number;
}

/** Telegram calls of one delivery at most: the prompt's edit and the push message. */
const CALLS_PER_DELIVERY = 2;
/** Room in a lease for the Redis reads and writes of one delivery. */
const LEASE_MARGIN_MS = 1000;

export class Notifier {
  readonly #options: Required<Omit<NotifierOptions, "logger">>;
  readonly #log: Logger;
  readonly #attempts = new Map<string, number>();
  readonly #failures: FailureStreakLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = true;
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
    const { leaseMs, callTimeoutMs } = this.#options;
    if (leaseMs <= CALLS_PER_DELIVERY * callTimeoutMs + LEASE_MARGIN_MS) {
      throw new RangeError(
        `notifier lease (${leaseMs} ms) must outlast a delivery at the Telegram call deadline (${CALLS_PER_DELIVERY} × ${callTimeoutMs} ms)`,
      );
    }
    this.#failures = new FailureStreakLog(this.#log, "notification round");
  }

  start(): void {
    this.#stopped = false;
    this.#stopping = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** Checks the outbox now (after a webhook settled a payout) instead of at the next tick. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#running
        .then(() => this.drain())
        .then(() => this.#failures.succeeded())
        .catch((error: unknown) => this.#failures.failed(error))
        .finally(() => {
          if (!this.#timer) this.schedule(this.#options.tickMs);
        });
    }, delayMs);
  }

  /**
   * Delivers every notification that is due; returns how many were handled. Each is claimed
   * just before it is delivered, one at a time: a lease then covers one delivery, however
   * many are waiting behind it.
   */
  async drain(): Promise<number> {
    const { stores, now, leaseMs } = this.#options;
    let handled = 0;
    for (;;) {
      const [id] = await stores.outbox.claimDue(now(), 1, leaseMs);
      if (id === undefined) return handled;
      await this.deliver(id);
      handled += 1;
      if (this.#stopping) return handled;
    }
  }

  private async deliver(id: string): Promise<void> {
    const { stores, messenger, now } = this.#options;
    const payout = await stores.payouts.get(id);
    if (!payout || payout.notifiedAtMs !== undefined) {
      await stores.outbox.remove(id);
      return;
    }
    try {
      await messenger.notifySettled(payout);
    } catch (error) {
      await this.failed(id, error);
      return;
    }
    await stores.payouts.update(id, { notifiedAtMs: now() });
    await stores.outbox.remove(id);
    this.#attempts.delete(id);
    this.#log.info({ payoutId: id, state: payout.state }, "payer notified");
  }

  private async failed(id: string, error: unknown): Promise<void> {
    const { stores, now, maxAttempts, retryBaseMs } = this.#options;
    const attempts = (this.#attempts.get(id) ?? 0) + 1;
    const permanent = error instanceof DeliveryError && error.permanent;
    if (permanent || attempts >= maxAttempts) {
      this.#log.error({ payoutId: id, err: error, attempts }, "notification dropped");
      this.#attempts.delete(id);
      await stores.outbox.remove(id);
      return;
    }
    this.#attempts.set(id, attempts);
    const backoffMs = Math.min(600_000, retryBaseMs * 2 ** (attempts - 1));
    const retryAfterMs = error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = Math.max(backoffMs, retryAfterMs);
    this.#log.warn(
      { payoutId: id, err: error, attempts, retryInMs: delayMs },
      "notification failed; will retry",
    );
    await stores.outbox.schedule(id, now() + delayMs);
  }
}
