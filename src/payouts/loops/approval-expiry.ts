/**
 * The sweep that expires approvals nobody decided on within APPROVAL_TTL_HOURS, on the one
 * background runner, under a lease: one replica sweeps at a time (a second one would only
 * lose the compare-and-set, but need not try).
 */

import type { Logger } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { LeaseStore } from "../../store/types.js";
import type { Approval } from "../approval.js";
import { BackgroundRunner } from "./runner.js";

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
}

export class ApprovalExpiry {
  readonly #runner: BackgroundRunner;

  constructor(options: ApprovalExpiryOptions) {
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "approval expiry sweep",
      logger: options.logger,
      tickMs: options.tickMs ?? 30_000,
      round: () => options.approval.expireDue(),
      lease: {
        store: options.leases,
        name: "approval-expiry",
        ttlMs: options.leaseMs ?? 60_000,
        ...(options.owner === undefined ? {} : { owner: options.owner }),
      },
    });
  }

  start(): void {
    this.#runner.start();
  }

  /** Stops sweeping, waits for a sweep in progress, and hands the lease back. */
  stop(): Promise<void> {
    return this.#runner.stop();
  }
}
