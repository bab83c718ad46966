/**
 * The two loops behind the reports, each on the one background runner with a lease, so
 * one replica does the work while the others stand by:
 *
 * - the digest schedule: from DIGEST_HOUR on (in TIME_ZONE), queues that day's digest.
 *   The store queues a day once only (a mark and the outbox entry in one step), so two
 *   replicas, a lease changing hands or a restart at that hour still send one digest.
 * - the availability watcher: reads GET /availability every AVAILABILITY_CHECK_SECONDS
 *   (through the client's shared rate limiter, like every request; the answer also
 *   refreshes the cache /pay reads) and hands each operation to the store, which compares
 *   it with what was last seen and queues an alert only when it went down or came back.
 */

import type { Logger } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import { NOT_LISTED, type OperationState, WATCHED_OPERATIONS } from "../../model/availability.js";
import type { AvailabilityEntry } from "../../payments/schemas.js";
import type { LeaseStore, ReportsStore } from "../../store/types.js";
import { dayOf, hourOf } from "../../time.js";
import { BackgroundRunner } from "./runner.js";

/** A lease outlives a few rounds, and never less than 30 s. */
function leaseFor(store: LeaseStore, name: string, tickMs: number) {
  return { store, name, ttlMs: Math.max(30_000, tickMs * 3) };
}

export interface DigestScheduleOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  reports: ReportsStore;
  leases: LeaseStore;
  logger: Logger;
  /** DIGEST_HOUR: 0-23 in `timeZone`. */
  hour: number;
  timeZone: string;
  now: () => number;
  /** Called once the day's digest was queued (to deliver it at once). */
  onQueued: () => void;
  /** How often the hour is checked. Default 30 s. */
  tickMs?: number;
}

export class DigestSchedule {
  readonly #options: DigestScheduleOptions;
  readonly #runner: BackgroundRunner;

  constructor(options: DigestScheduleOptions) {
    this.#options = options;
    const tickMs = options.tickMs ?? 30_000;
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "digest round",
      logger: options.logger,
      tickMs,
      round: () => this.check(),
      lease: leaseFor(options.leases, "digest", tickMs),
    });
  }

  start(): void {
    this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  /** Queues today's digest if its hour has come and no replica queued it yet. */
  async check(): Promise<boolean> {
    const { reports, hour, timeZone, now, logger } = this.#options;
    const nowMs = now();
    if (hourOf(nowMs, timeZone) < hour) return false;
    const day = dayOf(nowMs, timeZone);
    const queued = await reports.queueDigestOnce(day, nowMs);
    if (queued) {
      logger.info({ day }, "daily digest queued");
      this.#options.onQueued();
    }
    return queued;
  }
}

export interface AvailabilityWatchOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  /** A fresh read of GET /availability (Lookups.availability({ fresh: true })). */
  read: () => Promise<AvailabilityEntry[]>;
  reports: ReportsStore;
  leases: LeaseStore;
  logger: Logger;
  /** AVAILABILITY_CHECK_SECONDS, in ms. */
  checkMs: number;
  now: () => number;
  /** Called after an alert was queued (to deliver it at once). */
  onQueued: () => void;
}

export class AvailabilityWatch {
  readonly #options: AvailabilityWatchOptions;
  readonly #runner: BackgroundRunner;

  constructor(options: AvailabilityWatchOptions) {
    this.#options = options;
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "availability check",
      logger: options.logger,
      tickMs: options.checkMs,
      // A failed check waits as long as a normal one: never more often than asked.
      maxBackoffMs: Math.max(options.checkMs, 5_000),
      round: () => this.check(),
      lease: leaseFor(options.leases, "availability-watch", options.checkMs),
    });
  }

  start(): void {
    this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  /** Reads the API's availability once and records it; resolves with how many changed. */
  async check(): Promise<number> {
    const entries = await this.#options.read();
    return (await recordAvailability(this.#options, entries)).queued;
  }
}

/**
 * Hands what the API said of each watched operation to the store (an operation it does
 * not list is down: NOT_LISTED). Resolves with how many alerts were queued and each
 * operation's state as now recorded (since when it is as it is). Also used by
 * /availability, so what it shows and when it changed agree with what it just read. The
 * entries must be a fresh answer, never a cached one (see Lookups.availability).
 */
export async function recordAvailability(
  options: Pick<AvailabilityWatchOptions, "reports" | "logger" | "now" | "onQueued">,
  entries: readonly AvailabilityEntry[],
): Promise<{ queued: number; states: OperationState[] }> {
  let queued = 0;
  const states: OperationState[] = [];
  // One reading, one time: every operation of it was seen at the same moment.
  const nowMs = options.now();
  for (const { operator, operation } of WATCHED_OPERATIONS) {
    const entry = entries.find(
      (item) => item.operator === operator && item.operation.type === operation,
    );
    const status = entry?.operation.status ?? NOT_LISTED;
    const change = await options.reports.observeAvailability(
      { operator, operation, status },
      nowMs,
    );
    states.push(change.state);
    if (change.kind === "changed" || (change.kind === "first" && !change.state.up)) {
      queued += 1;
      options.logger.info(
        { operator, operation, status: change.state.status, up: change.state.up },
        "operator availability changed",
      );
    }
  }
  if (queued > 0) options.onQueued();
  return { queued, states };
}
