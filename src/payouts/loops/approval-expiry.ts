/**
 * The sweep that expires approvals nobody decided on within APPROVAL_TTL_HOURS, on the one
 * background runner, under a lease: one replica sweeps at a time (a second one would only
 * lose the compare-and-set, but need not try).
 */

import type { Logger } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { LeaseStore } from "../../store/types.js";
import type { Approval } from "../approval.js";
import { BackgroundRunner, IDLE_ROUND, restingPauseMs } from "./runner.js";

export interface ApprovalExpiryOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  approval: Approval;
  leases: LeaseStore;
  logger: Logger;
  /** How often it looks. Default 30 s: an approval expires at most that late. */
  tickMs?: number;
  /** The sweep's lease. Default 60 s. */
  leaseMs?: number;
  /** Who holds the lease (a stable name takes it back at once after a restart). */
  owner?: string;
  /**
   * A merchant's runtime: after each sweep, rest this long (UNTIL_WOKEN: until an approval
   * is asked for, loops/wakes.ts) or until the first approval still waiting lapses, instead
   * of sweeping every `tickMs`. Default: no rest.
   */
  restMs?: number;
  /** The clock the approvals' lapse times are read against. Default Date.now. */
  now?: () => number;
}

export class ApprovalExpiry {
  readonly #runner: BackgroundRunner;

  constructor(options: ApprovalExpiryOptions) {
    const tickMs = options.tickMs ?? 30_000;
    const leaseMs = options.leaseMs ?? 60_000;
    const rest = options.restMs;
    let nextAtMs: number | null = null;
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "approval expiry sweep",
      logger: options.logger,
      tickMs,
      round: async () => {
        if (rest === undefined) return options.approval.expireDue();
        ({ nextAtMs } = await options.approval.expireDueNext());
        return IDLE_ROUND;
      },
      ...(rest === undefined
        ? {}
        : {
            idlePauseMs: () =>
              restingPauseMs(
                { restMs: rest, tickMs, now: options.now ?? Date.now },
                async () => nextAtMs,
              ),
          }),
      lease: {
        store: options.leases,
        name: "approval-expiry",
        ttlMs: leaseMs,
        // Held elsewhere: asked for again once that lease may have lapsed, not every tick.
        ...(rest === undefined ? {} : { retryMs: leaseMs }),
        ...(options.owner === undefined ? {} : { owner: options.owner }),
      },
    });
  }

  start(): void {
    this.#runner.start();
  }

  /** Sweeps now (an approval was asked for: its lapse time is read). */
  wake(): void {
    this.#runner.wake();
  }

  /** Stops sweeping, waits for a sweep in progress, and hands the lease back. */
  stop(): Promise<void> {
    return this.#runner.stop();
  }
}
