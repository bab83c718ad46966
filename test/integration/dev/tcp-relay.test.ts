import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { TcpRelay } from "../../../src/dev/tcp-relay.js";
import { testRedisUrl } from "../../support/redis.js";

const relays: TcpRelay[] = [];
const clients: Redis[] = [];

async function relayToRedis(options: { upstreamDelayMs?: number; downstreamDelayMs?: number }) {
  const target = new URL(testRedisUrl());
  const relay = await TcpRelay.start({
    targetHost: target.hostname,
    targetPort: Number(target.port || 6379),
    ...options,
  });
  relays.push(relay);
  return relay;
}

function clientOf(relay: TcpRelay): Redis {
  const client = new Redis({
    host: "127.0.0.1",
    port: relay.port,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => 50,
    lazyConnect: true,
  });
  client.on("error", () => {});
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

describe("TcpRelay", () => {
  it("carries a Redis conversation both ways, in order", async () => {
    const relay = await relayToRedis({});
    const client = clientOf(relay);
    await client.connect();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, index) => client.echo(`m${index}`)),
    );
    expect(replies).toEqual(Array.from({ length: 50 }, (_, index) => `m${index}`));
    expect(relay.connections).toBe(1);
  });

  it("answers no sooner than the delays it adds each way", async () => {
    const relay = await relayToRedis({ upstreamDelayMs: 60, downstreamDelayMs: 40 });
    const client = clientOf(relay);
    await client.connect();
    const startedMs = performance.now();
    expect(await client.ping()).toBe("PONG");
    // A lower bound only: the relay can make an answer late, never early.
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(95);
  });

  it("counts a round trip per answer waited for, and the bytes each way", async () => {
    const relay = await relayToRedis({});
    const client = clientOf(relay);
    await client.connect();
    const before = relay.counters;
    for (let n = 0; n < 3; n++) expect(await client.ping()).toBe("PONG");
    const sequential = relay.counters;
    expect(sequential.roundTrips - before.roundTrips).toBe(3);
    // PING is 14 bytes on the wire (*1 $4 PING), PONG 7 (+PONG).
    expect(sequential.bytesUp - before.bytesUp).toBe(3 * 14);
    expect(sequential.bytesDown - before.bytesDown).toBe(3 * 7);

    // Sent together (one pipeline), answered together: one round trip.
    await client.pipeline().ping().ping().ping().ping().exec();
    expect(relay.counters.roundTrips - sequential.roundTrips).toBe(1);
    expect(relay.counters.bytesUp - sequential.bytesUp).toBe(4 * 14);
    expect(relay.counters.connections).toBe(1);
  });

  it("cuts open connections and refuses new ones during a blip, then lets them in again", async () => {
    const relay = await relayToRedis({});
    const client = clientOf(relay);
    await client.connect();
    expect(await client.ping()).toBe("PONG");

    relay.blip(400);
    await expect.poll(() => client.status).not.toBe("ready");
    expect(relay.connections).toBe(0);
    await expect(client.ping()).rejects.toThrow();

    await expect.poll(() => client.status, { timeout: 5000 }).toBe("ready");
    expect(await client.ping()).toBe("PONG");
  });
});
