/**
 * Loopback helpers shared by the global setup and the tests: a free port, and whether a
 * Redis answers at a URL. Nothing here imports vitest, so the global setup can use it.
 */
import { Redis } from "ioredis";
import { freeLoopbackPort } from "../../src/dev/free-port.js";

/** A free TCP port on 127.0.0.1: free when asked, so use it at once (or as a closed port). */
export const freePort = freeLoopbackPort;

/** True when a Redis at `url` answers PING within `connectTimeoutMs`; never retries or throws. */
export async function redisAnswers(url: string, connectTimeoutMs = 1000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: connectTimeoutMs,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
