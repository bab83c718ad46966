/**
 * The composition root's reports: the digest and availability alerts the messenger
 * delivers, and the two loops that queue them (the digest at DIGEST_HOUR, the
 * availability watcher every AVAILABILITY_CHECK_SECONDS), each on one replica by lease.
 */
import type { Telegram } from "telegraf";
import { ReportDelivery } from "./bot/report-delivery.js";
import type { Config } from "./config/index.js";
import type { Logger } from "./logger.js";
import { DailyDigest } from "./payouts/digest.js";
import type { Lookups } from "./payouts/lookups.js";
import { AvailabilityWatch, DigestSchedule } from "./payouts/report-loops.js";
import type { Stores } from "./store/types.js";

export function reportDelivery(
  config: Config,
  stores: Stores,
  telegram: Telegram,
  logger: Logger,
  now: () => number,
): ReportDelivery {
  return new ReportDelivery({
    telegram,
    stores,
    logger,
    timeZone: config.timeZone,
    digest: new DailyDigest({ stores, timeZone: config.timeZone, now }),
    alertChatId: config.reports.alertChatId,
  });
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
  const common = { reports: stores.reports, leases: stores.leases, logger, now, onQueued };
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
    read: () => options.lookups.availability({ fresh: true }),
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
