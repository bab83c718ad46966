/**
 * Loopback helpers shared by the global setup and the tests: a free port, and whether a
 * Redis answers at a URL. Nothing here imports vitest, so the global setup can use it.
 */
import { createServer } from "node:net";
import { Redis } from "ioredis";

/** A free TCP port on 127.0.0.1: free when asked, so use it at once (or as a closed port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port"))));
    });
  });
}

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
