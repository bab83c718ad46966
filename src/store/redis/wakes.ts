/**
 * The bot's one subscriber to the wake channel (store/keys.ts `wakeChannel`): every script
 * that gives a loop work PUBLISHes `<queue> <merchant key prefix>` in the same step
 * (lua/includes/wake.lua), and this connection hands each message to `wake`.
 *
 * Pub/sub delivers at most once: a message sent while the subscription is down is lost. So
 * each time the subscription is made (at start, after a reconnection, after a cluster node
 * is lost), `sweep` is called once it is confirmed: every loop reads its queues again, and
 * nothing written meanwhile waits.
 *
 * One Redis or Sentinel: a connection of its own (the same options), reconnecting forever,
 * subscribing again itself on each `ready`. Redis Cluster: PUBLISH reaches every node, so
 * the subscriber listens on one node; when that connection ends it moves to another known
 * node (ioredis's own cluster subscriber re-subscribes silently, with nothing to sweep on).
 */
import { Cluster, type Redis } from "ioredis";
import type { Logger } from "../../logger.js";
import type { RedisClient } from "./connection.js";

export interface WakeHandlers {
  /** Work was written to `queue` of the merchant whose keys start with `keyPrefix`. */
  wake(queue: string, keyPrefix: string): void;
  /** The subscription was (re)made: messages may have been lost; every loop should read. */
  sweep(): void;
}

export interface WakeSubscriber {
  close(): Promise<void>;
}

/** How long a cluster subscriber waits before it tries another node. */
const NODE_RETRY_MS = 500;

/** Splits `<queue> <prefix>`; null for anything else. */
export function parseWake(message: string): { queue: string; keyPrefix: string } | null {
  const space = message.indexOf(" ");
  if (space <= 0) return null;
  return { queue: message.slice(0, space), keyPrefix: message.slice(space + 1) };
}

/** Subscribes to `channel` beside `redis` (never on it: a subscribed connection runs nothing else). */
export function subscribeWakes(
  redis: RedisClient,
  channel: string,
  handlers: WakeHandlers,
  logger: Logger,
): WakeSubscriber {
  let closed = false;
  let current: Redis | undefined;
  let retry: NodeJS.Timeout | undefined;

  const listen = (connection: Redis) => {
    current = connection;
    if (connection.status === "wait") connection.connect().catch(() => {});
    connection.on("error", (error: Error) => logger.debug({ err: error }, "wake subscriber error"));
    connection.on("message", (from: string, message: string) => {
      if (from !== channel) return;
      const wake = parseWake(message);
      if (wake) handlers.wake(wake.queue, wake.keyPrefix);
    });
    connection.on("ready", () => {
      connection
        .subscribe(channel)
        .then(() => {
          logger.debug({ channel }, "wake channel subscribed");
          if (!closed) handlers.sweep();
        })
        .catch((error: unknown) => {
          // Not subscribed: drop the connection, so the next one subscribes and sweeps.
          logger.warn({ err: error }, "wake channel not subscribed");
          connection.disconnect(true);
        });
    });
  };

  if (!(redis instanceof Cluster)) {
    listen(redis.duplicate({ autoResubscribe: false, enableOfflineQueue: true }));
  } else {
    const onNode = () => {
      retry = undefined;
      if (closed) return;
      const nodes = redis.nodes("all");
      const node = nodes[Math.floor(Math.random() * nodes.length)];
      if (!node) {
        retry = setTimeout(onNode, NODE_RETRY_MS);
        return;
      }
      // No reconnection of its own: a node that went away may stay away; another is chosen.
      const connection = node.duplicate({
        autoResubscribe: false,
        enableOfflineQueue: true,
        retryStrategy: () => null,
      });
      connection.once("end", () => {
        if (!closed) retry = setTimeout(onNode, NODE_RETRY_MS);
      });
      listen(connection);
    };
    onNode();
  }

  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const connection = current;
      current = undefined;
      if (connection) await connection.quit().catch(() => connection.disconnect());
    },
  };
}
