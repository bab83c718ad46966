/**
 * Long polling, with one consumer per bot token across replicas (Telegram answers a
 * second `getUpdates` with 409 Conflict). Each replica tries to hold a Redis lease; the
 * holder polls and renews, the others wait and take over when the lease lapses. Updates
 * are handed to the bot as they arrive, without waiting for slow handlers; the bot's
 * per-chat queue keeps each chat in order.
 */
import { randomUUID } from "node:crypto";
import type { Telegram } from "telegraf";
import type { Update } from "telegraf/types";
import type { Logger } from "../../logger.js";
import { latencyTraceOn, traceUpdate, wallMs } from "../../metrics/latency-trace.js";
import type { LeaseStore } from "../../store/types.js";

export interface PollerOptions {
  telegram: Telegram;
  handleUpdate: (update: Update) => Promise<void>;
  leases: LeaseStore;
  logger: Logger;
  /** Long-poll wait in seconds. Default 25. */
  pollTimeoutSeconds?: number;
  /** Lease length; renewed every third of it. Default 30 s. */
  leaseMs?: number;
  /** Pause after a failed getUpdates. Default 2 s. */
  errorBackoffMs?: number;
  /**
   * Shortest time from one getUpdates to the next when the first came back empty before
   * its timeout. Telegram holds an empty long poll for the whole timeout; a server that
   * ignores `timeout` answers at once, and asking again at once would spin (thousands of
   * requests a second). Default 1 s.
   */
  emptyPollIntervalMs?: number;
  /**
   * How often a replica without the lease tries to take it. Default 1 s, at most a third
   * of the lease: a lease handed over on a clean stop is taken within about this long.
   */
  standbyRetryMs?: number;
  leaseName?: string;
  /**
   * Who holds the lease. A stable identity (the host and the HTTP port this instance
   * listens on) lets a process restarted after a crash take back its own lease at once,
   * instead of waiting for the dead process's lease to lapse. Default: random per process.
   */
  owner?: string;
}

const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** How long one getUpdates waits for updates, in seconds, unless told otherwise. */
export const DEFAULT_POLL_TIMEOUT_SECONDS = 25;

type TelegrafSignal = NonNullable<NonNullable<Parameters<Telegram["callApi"]>[2]>["signal"]>;

/**
 * Node's own AbortSignal is what Telegraf's options take: its HTTP client (node-fetch)
 * accepts any spec AbortSignal, but its typings name the `abort-controller` polyfill's type.
 */
function isTelegrafSignal(signal: AbortSignal): signal is AbortSignal & TelegrafSignal {
  return signal instanceof AbortSignal;
}

export class UpdatePoller {
  readonly owner: string;
  readonly #options: Required<Omit<PollerOptions, "owner">>;
  readonly #inFlight = new Set<Promise<void>>();
  #stopped = true;
  #loop: Promise<void> | undefined;
  /** Aborted by `stop`: ends a pause and the long poll in flight. */
  #abort = new AbortController();
  #leader = false;
  #renewedAt = 0;
  #renewFailing = false;

  constructor(options: PollerOptions) {
    this.owner = options.owner ?? randomUUID();
    this.#options = {
      pollTimeoutSeconds: DEFAULT_POLL_TIMEOUT_SECONDS,
      leaseMs: 30_000,
      errorBackoffMs: 2000,
      emptyPollIntervalMs: 1000,
      standbyRetryMs: Math.min(1000, (options.leaseMs ?? 30_000) / 3),
      leaseName: "telegram-poller",
      ...options,
    };
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  start(): void {
    this.#stopped = false;
    this.#abort = new AbortController();
    this.#loop = this.run();
  }

  /**
   * Stops polling, waits for handlers in flight, and hands the lease over. A long poll
   * still waiting is aborted: what it would have brought is left unconfirmed.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await Promise.race([this.#loop, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    await Promise.allSettled([...this.#inFlight]);
    if (this.#leader)
      await this.#options.leases
        .release(this.#options.leaseName, this.owner)
        .catch(() => undefined);
    this.#leader = false;
  }

  private async run(): Promise<void> {
    let offset = 0;
    while (!this.#stopped) {
      try {
        if (!(await this.holdLease())) {
          await this.pause(this.#options.standbyRetryMs);
          continue;
        }
        offset = await this.pollOnce(offset);
      } catch (error) {
        if (this.#stopped) break;
        this.#options.logger.warn({ err: error }, "getUpdates failed; retrying");
        await this.pause(this.#options.errorBackoffMs);
      }
    }
  }

  /**
   * Takes the lease, or renews it every third of its length; true when this replica
   * should poll now. A leader that cannot reach Redis polls on: users are then told the
   * bot cannot take payouts instead of hearing nothing (no replica can take the lease from
   * an unreachable Redis either). It steps down only when Redis says the lease is gone.
   */
  private async holdLease(): Promise<boolean> {
    const { leases, leaseName, leaseMs, logger } = this.#options;
    if (this.#leader && Date.now() - this.#renewedAt <= leaseMs / 3) return true;
    let held: boolean;
    try {
      held = this.#leader
        ? await leases.renew(leaseName, this.owner, leaseMs)
        : await leases.acquire(leaseName, this.owner, leaseMs);
    } catch (error) {
      if (!this.#leader) throw error;
      if (!this.#renewFailing)
        logger.warn(
          { err: error },
          "cannot renew the polling lease; polling on until Redis answers",
        );
      this.#renewFailing = true;
      return true;
    }
    this.#renewFailing = false;
    if (held !== this.#leader)
      logger.info(
        { leader: held },
        held ? "this replica now polls Telegram" : "lost the polling lease",
      );
    this.#leader = held;
    this.#renewedAt = Date.now();
    return held;
  }

  private async pollOnce(offset: number): Promise<number> {
    const { telegram, pollTimeoutSeconds, emptyPollIntervalMs } = this.#options;
    const { signal } = this.#abort;
    const askedAtMs = Date.now();
    const traced = latencyTraceOn() ? wallMs() : 0;
    const updates = await telegram.callApi(
      "getUpdates",
      { offset, limit: 100, timeout: pollTimeoutSeconds, allowed_updates: [...ALLOWED_UPDATES] },
      { signal: isTelegrafSignal(signal) ? signal : undefined },
    );
    // Stopped while waiting: leave these unconfirmed, so the next poller gets them again.
    if (this.#stopped) return offset;
    const tookMs = Date.now() - askedAtMs;
    // Telegram holds an empty poll for its whole timeout; one answered sooner did not wait.
    if (updates.length === 0 && tookMs < pollTimeoutSeconds * 1000) {
      await this.pause(emptyPollIntervalMs - tookMs);
      return offset;
    }
    let next = offset;
    const polled: Array<[string, number]> =
      traced > 0
        ? [
            ["poll asked", traced],
            ["poll answered", wallMs()],
          ]
        : [];
    for (const update of updates) {
      next = Math.max(next, update.update_id + 1);
      this.dispatch(update, polled);
    }
    return next;
  }

  private dispatch(update: Update, polled: Array<[string, number]>): void {
    const handled = traceUpdate(update, polled, () => this.#options.handleUpdate(update)).catch(
      (error: unknown) =>
        this.#options.logger.error({ err: error, updateId: update.update_id }, "update failed"),
    );
    this.#inFlight.add(handled);
    void handled.finally(() => this.#inFlight.delete(handled));
  }

  /** Waits `ms` (nothing when zero or less), or less when the poller stops. */
  private pause(ms: number): Promise<void> {
    const signal = this.#abort.signal;
    if (ms <= 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
    });
  }
}
