/**
 * A Redis that answers but refuses writes (out of memory, or a read-only replica after a
 * failover) is "storage unavailable" to the user, never "something went wrong": nothing was
 * stored and nothing was sent.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyWith, sendAndWait } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";
import { freePort } from "../../support/net.js";
import { PrivateRedis } from "../../support/processes.js";

describe("a Redis that refuses writes", () => {
  let redis: PrivateRedis;
  let admin: Redis;
  let h: Harness;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    admin = new Redis(redis.url);
    // Webhook mode: the long poller's lease lives in Redis too, and a Redis refusing
    // writes would stop it from asking Telegram at all.
    const port = await freePort();
    h = await startHarness({
      env: {
        REDIS_URL: redis.url,
        HTTP_PORT: String(port),
        HTTP_HOST: "127.0.0.1",
        TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
        TELEGRAM_WEBHOOK_SECRET: "storage-errors-secret",
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    admin?.disconnect();
    await redis?.close();
  });

  /**
   * The reply that says so, and no button left to press: the prompt goes out before its
   * record is stored (payouts/prepare.ts), so a refused write may come after it, and then
   * takes its buttons away before the reply.
   */
  async function payAndRead(): Promise<string> {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const said = isNewReplyWith(PAYER_ID, "storage is unavailable");
    const reply = await sendAndWait(h.emulator, payer, "/pay 237670000001 5000", said);
    const buttons = h.emulator.messages(PAYER_ID).flatMap((m) => (m.replyMarkup ?? []).flat());
    expect(buttons).toEqual([]);
    return plainText(reply);
  }

  it("tells the payer the storage is unavailable when Redis is out of memory", async () => {
    await admin.config("SET", "maxmemory-policy", "noeviction");
    await admin.config("SET", "maxmemory", "1");
    try {
      const text = await payAndRead();
      expect(text).toContain("storage is unavailable");
      expect(text).toContain("Nothing was sent");
    } finally {
      await admin.config("SET", "maxmemory", "0");
    }
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });

  it("tells the payer the storage is unavailable when Redis became a read-only replica", async () => {
    await admin.replicaof("127.0.0.1", await freePort());
    try {
      const text = await payAndRead();
      expect(text).toContain("storage is unavailable");
    } finally {
      await admin.replicaof("NO", "ONE");
    }
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });
});
