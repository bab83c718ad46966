/**
 * The composition root's signed events: off unless EVENTS_URL and EVENTS_SECRET are set;
 * then the queue on the bot's Redis, the sender, and the loop (started by the caller once
 * the notifier runs, since a 410 queues an alert for the admins).
 */

import { hostname } from "node:os";
import type { Config } from "./config/index.js";
import { EventSender } from "./events/sender.js";
import { type Logger, redactUrlCredentials } from "./logger.js";
import type { Metrics } from "./metrics/metrics.js";
import { EventDispatch, type EventRetryPolicy } from "./payouts/loops/events.js";
import { StartupError } from "./startup-checks.js";
import { keys } from "./store/keys.js";
import type { RedisClient } from "./store/redis/connection.js";
import { RedisEventsStore } from "./store/redis/events.js";
import type { Stores } from "./store/types.js";

export interface EventsSetup {
  config: Config;
  /** The bot's Redis connection; undefined with in-memory stores (the demo). */
  redis: RedisClient | undefined;
  stores: Stores;
  logger: Logger;
  now: () => number;
  /** A notice was queued (the 410 alert): deliver it at once. */
  wake: () => void;
  /** Whether the app listens on HTTP_PORT (its lease owner is then host:port). */
  http?: boolean;
  eventRetry?: EventRetryPolicy;
  metrics?: Metrics;
}

export interface EventsHandle {
  readonly dispatch: EventDispatch;
  /** The events waiting, and when the oldest one's change happened (the metrics' gauges). */
  backlog(): Promise<{ waiting: number; oldestWaitingMs: number | undefined }>;
  /** Starts the loop; answers how to stop it (and close the sender). */
  start(): () => Promise<void>;
}

export function createEvents(setup: EventsSetup): EventsHandle | undefined {
  const settings = setup.config.events;
  if (!settings) return undefined;
  if (!setup.redis) {
    throw new StartupError(
      "Signed events (EVENTS_URL) need Redis; the in-memory stores have none.",
    );
  }
  const sender = new EventSender({ url: settings.url, key: settings.key });
  setup.logger.info({ url: redactUrlCredentials(settings.url) }, "signed events on");
  // A listening process has a stable name: restarted in place, it takes its lease back.
  const { port } = setup.config.http;
  const listens = setup.http !== false && port !== 0;
  const queue = new RedisEventsStore(setup.redis, keys(setup.config.redis.keyPrefix));
  const dispatch = new EventDispatch({
    queue,
    metrics: setup.metrics,
    sender,
    stores: setup.stores,
    logger: setup.logger,
    now: setup.now,
    onNoticeQueued: setup.wake,
    ...(listens ? { owner: `${hostname()}:${port}` } : {}),
    ...(setup.eventRetry ? { retry: setup.eventRetry } : {}),
  });
  return {
    dispatch,
    backlog: async () => {
      const { waiting, oldestWaitingMs } = await queue.summary(setup.now());
      return { waiting, oldestWaitingMs };
    },
    start: () => {
      dispatch.start();
      // A receiver that never answers must not hold the stop for 10 s: its tries end now.
      return async () => {
        await sender.close();
        await dispatch.stop();
      };
    },
  };
}
