/**
 * The one background runner every loop of the bot stands on: the tracker, the notifier,
 * and any worker to come. It runs a round of work, pauses, and runs the next; it can be
 * woken early; a failed round is logged once per outage (the first failure as an error,
 * repeats at debug, the recovery at info) and the pause grows while rounds keep failing.
 * With a lease, rounds run only on the replica that holds it.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../../logger.js";
import { type Metrics, NO_METRICS } from "../../metrics/metrics.js";
import type { LeaseStore } from "../../store/types.js";

export interface RunnerLease {
  store: LeaseStore;
  name: string;
  /** Lease length; renewed before each round once a third of it has passed. */
  ttlMs: number;
  /** Who holds it (default: random per process). */
  owner?: string;
  /** Pause between tries while another replica holds it (default `tickMs`). */
  retryMs?: number;
}

/** What a round answers when it found nothing to do: the next waits `idleTickMs`. */
export const IDLE_ROUND = "idle";

/**
 * A rest that ends only when the loop is woken (`wake()`): no timer at all. A merchant's
 * loops rest so when every write of work, by any replica, wakes them (loops/wakes.ts).
 */
export const UNTIL_WOKEN = Number.POSITIVE_INFINITY;

/**
 * The longest timer Node keeps (about 24.8 days): a longer one fires at once. A pause past it
 * ends there, and the loop reads again (once in weeks).
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * A loop's rest after a round that found nothing: `restMs` (UNTIL_WOKEN: no timer), or less
 * when its next work is due sooner (`nextDueAtMs`, null: none), never under `tickMs`. Work
 * written anywhere wakes the loop at once; work due later is read from the store, so a rest
 * never makes it late.
 */
export async function restingPauseMs(
  rest: { restMs: number; tickMs: number; now: () => number },
  nextDueAtMs: () => Promise<number | null>,
): Promise<number> {
  const dueAtMs = await nextDueAtMs();
  if (dueAtMs === null) return rest.restMs;
  return Math.min(rest.restMs, Math.max(rest.tickMs, dueAtMs - rest.now()));
}

export interface BackgroundRunnerOptions {
  /** Named in the logs: "tracking round", "notification round"… */
  name: string;
  logger: Logger;
  /** Pause between two rounds. */
  tickMs: number;
  /**
   * Pause after a round that answered IDLE_ROUND (default `tickMs`): a loop with nothing to
   * do asks the store less often; `wake()` still runs the next round at once.
   */
  idleTickMs?: number;
  /**
   * After a round that answered IDLE_ROUND, how long to rest instead of `idleTickMs` (a
   * merchant's runtime rests until its next work is due: `restingPauseMs`); UNTIL_WOKEN: until
   * `wake()`, with no timer.
   */
  idlePauseMs?: () => Promise<number>;
  /** One round of work. */
  round: () => Promise<unknown>;
  /** Run rounds only while this replica holds the lease. */
  lease?: RunnerLease;
  /** Longest pause after failed rounds (the pause doubles per failure). Default 5 s. */
  maxBackoffMs?: number;
  /** Each round's lag (how late it started after it was due) and failure. Default: none. */
  metrics?: Metrics;
}

export class BackgroundRunner {
  readonly #options: BackgroundRunnerOptions;
  readonly #owner: string;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = true;
  #failures = 0;
  #leaseRenewedAtMs = 0;
  #holdsLease = false;
  /** When the round scheduled last is due (performance.now() time). */
  #dueAtMs = 0;

  constructor(options: BackgroundRunnerOptions) {
    this.#options = options;
    this.#owner = options.lease?.owner ?? randomUUID();
  }

  /** True while this replica holds the runner's lease (always true without one). */
  get holdsLease(): boolean {
    return this.#options.lease === undefined || this.#holdsLease;
  }

  /** Starts the rounds, the first at once. */
  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops the rounds, waits for the one in progress, and hands the lease back. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    const lease = this.#options.lease;
    if (lease && this.#holdsLease) {
      await lease.store.release(lease.name, this.#owner).catch(() => undefined);
      this.#holdsLease = false;
    }
  }

  /** Runs the next round now instead of after the pause (new work just arrived). */
  wake(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    // Resting until woken: no timer; wake() schedules the next round.
    if (delayMs === UNTIL_WOKEN) return;
    delayMs = Math.min(delayMs, LONGEST_TIMER_MS);
    this.#dueAtMs = performance.now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#running.then(() => this.#runRound());
    }, delayMs);
  }

  async #runRound(): Promise<void> {
    let pauseMs = this.#options.tickMs;
    const lagMs = performance.now() - this.#dueAtMs;
    let failed = false;
    try {
      const mayRun = await this.#mayRun();
      const answer = mayRun ? await this.#options.round() : undefined;
      if (!mayRun) pauseMs = this.#options.lease?.retryMs ?? pauseMs;
      if (answer === IDLE_ROUND) {
        const { idlePauseMs, idleTickMs } = this.#options;
        pauseMs = idlePauseMs ? await idlePauseMs() : (idleTickMs ?? pauseMs);
      }
      if (this.#failures > 0) {
        this.#options.logger.info(
          { failures: this.#failures },
          `${this.#options.name} works again`,
        );
      }
      this.#failures = 0;
    } catch (error) {
      failed = true;
      this.#failures += 1;
      const { logger, name } = this.#options;
      if (this.#failures === 1) logger.error({ err: error }, `${name} failed`);
      else logger.debug({ err: error, failures: this.#failures }, `${name} failed again`);
      pauseMs = Math.min(
        this.#options.maxBackoffMs ?? 5_000,
        this.#options.tickMs * 2 ** this.#failures,
      );
    }
    (this.#options.metrics ?? NO_METRICS).loopRound(this.#options.name, lagMs / 1000, failed);
    // A wake() during the round already set the next one.
    if (!this.#timer) this.#schedule(pauseMs);
  }

  /** Takes or renews the lease when there is one; true when this replica should run. */
  async #mayRun(): Promise<boolean> {
    const lease = this.#options.lease;
    if (!lease) return true;
    if (this.#holdsLease && Date.now() - this.#leaseRenewedAtMs < lease.ttlMs / 3) return true;
    const held = this.#holdsLease
      ? await lease.store.renew(lease.name, this.#owner, lease.ttlMs)
      : await lease.store.acquire(lease.name, this.#owner, lease.ttlMs);
    if (held !== this.#holdsLease) {
      this.#options.logger.info(
        { lease: lease.name, held },
        `${this.#options.name} lease ${held ? "taken" : "lost"}`,
      );
    }
    this.#holdsLease = held;
    if (held) this.#leaseRenewedAtMs = Date.now();
    return held;
  }
}
