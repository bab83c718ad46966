/**
 * The composition root's reports: the digest and availability alerts the messenger
 * delivers, and the two loops that queue them (the digest at DIGEST_HOUR, the
 * availability watcher every AVAILABILITY_CHECK_SECONDS), each on one replica by lease.
 */

import type { Telegram } from "telegraf";
import { ReportDelivery } from "./bot/messenger/reports.js";
import type { Config } from "./config/index.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics/metrics.js";
import type { Limits } from "./payouts/limits.js";
import type { Lookups } from "./payouts/lookups.js";
import { DailyDigest, type DigestSources, type LimitUse } from "./payouts/loops/digest.js";
import { AvailabilityWatch, DigestSchedule } from "./payouts/loops/report-loops.js";
import { scheduleDigest } from "./payouts/schedule/digest-facts.js";
import type { Stores } from "./store/types.js";

export function reportDelivery(
  config: Config,
  stores: Stores,
  limits: Limits,
  telegram: Telegram,
  logger: Logger,
  now: () => number,
): ReportDelivery {
  const sources = digestSources(stores, limits, config.timeZone);
  return new ReportDelivery({
    telegram,
    stores,
    logger,
    timeZone: config.timeZone,
    digest: new DailyDigest({ stores, timeZone: config.timeZone, now, sources }),
    alertChatId: config.reports.alertChatId,
  });
}

/** The most batches a digest looks back at (a day's batches, newest first). */
const DIGEST_BATCHES = 50;

/** What the batches and the daily limits add to the digest. */
function digestSources(stores: Stores, limits: Limits, timeZone: string): DigestSources {
  return {
    schedules: (day) => scheduleDigest(stores, day, timeZone),
    batches: async ({ fromMs, toMs }) => {
      const recent = await stores.batches.list({ limit: DIGEST_BATCHES });
      return recent
        .filter((batch) => batch.confirmedAtMs !== undefined)
        .filter((batch) => batch.createdAtMs >= fromMs && batch.createdAtMs <= toMs)
        .map((batch) => ({
          batchId: batch.id,
          payouts: batch.payableRows ?? 0,
          succeeded: batch.tally?.paid ?? 0,
          amount: batch.tally?.paidXaf ?? 0,
        }));
    },
    // The day the limits count is today: the digest is sent on its own day.
    limits: async () => {
      const report = await limits.report();
      const uses: LimitUse[] = [];
      if (report.merchantCapXaf !== undefined) {
        uses.push({ usedXaf: report.merchantUsedXaf, limitXaf: report.merchantCapXaf });
      }
      if (report.payerCapXaf !== undefined) {
        for (const [userId, usedXaf] of report.byUser) {
          uses.push({ userId, usedXaf, limitXaf: report.payerCapXaf });
        }
      }
      return uses;
    },
  };
}

export interface ReportLoops {
  /** Absent when DIGEST_HOUR is unset. */
  readonly digest: DigestSchedule | undefined;
  readonly availability: AvailabilityWatch;
  stop(): Promise<void>;
}

/** Starts the loops; `onQueued` is called when one queued a notice. */
export function startReportLoops(options: {
  config: Config;
  stores: Stores;
  lookups: Lookups;
  logger: Logger;
  now: () => number;
  onQueued: () => void;
  /** How often the digest hour is checked (tests use short ones). */
  digestTickMs?: number;
  metrics?: Metrics;
}): ReportLoops {
  const { config, stores, logger, now, onQueued } = options;
  const { digestHour, availabilityCheckMs } = config.reports;
  const perMinute = 60_000 / availabilityCheckMs;
  if (perMinute > config.payment.rateLimitPerMinute / 4) {
    logger.warn(
      { checksPerMinute: perMinute, rateLimitPerMinute: config.payment.rateLimitPerMinute },
      "AVAILABILITY_CHECK_SECONDS takes more than a quarter of the Payment API's rate limit",
    );
  }
  const { metrics } = options;
  const common = { reports: stores.reports, leases: stores.leases, logger, now, onQueued, metrics };
  const digest =
    digestHour === undefined
      ? undefined
      : new DigestSchedule({
          ...common,
          hour: digestHour,
          timeZone: config.timeZone,
          ...(options.digestTickMs === undefined ? {} : { tickMs: options.digestTickMs }),
        });
  const availability = new AvailabilityWatch({
    ...common,
    read: () => options.lookups.availability({ fresh: true, background: true }),
    checkMs: availabilityCheckMs,
  });
  digest?.start();
  availability.start();
  return {
    digest,
    availability,
    stop: async () => {
      await Promise.all([digest?.stop(), availability.stop()]);
    },
  };
}
