/**
 * The front's one wake subscriber (store/redis/wakes.ts) for every merchant it runs: a wake
 * goes to the loops of the merchant whose keys it names; a (re)subscription wakes every
 * loop of every merchant once, since pub/sub may have lost a message meanwhile.
 */
import type { App } from "./app.js";
import type { Logger } from "./logger.js";
import { wakeChannel } from "./store/keys.js";
import type { RedisClient } from "./store/redis/connection.js";
import { subscribeWakes, type WakeSubscriber } from "./store/redis/wakes.js";

/** What a runtime shows the router: its keys' prefix, and its loops. */
interface Routed {
  readonly merchant: { readonly config: { readonly redis: { readonly keyPrefix: string } } };
  readonly app: Pick<App, "wakeLoops">;
}

export function routeWakes(
  redis: RedisClient,
  sharedKeyPrefix: string,
  runtimes: () => Iterable<Routed>,
  logger: Logger,
): WakeSubscriber {
  return subscribeWakes(
    redis,
    wakeChannel(sharedKeyPrefix),
    {
      wake(queue, keyPrefix) {
        for (const running of runtimes()) {
          if (running.merchant.config.redis.keyPrefix === keyPrefix) running.app.wakeLoops(queue);
        }
      },
      sweep() {
        for (const running of runtimes()) running.app.wakeLoops();
      },
    },
    logger,
  );
}
