/**
 * A merchant's loops rest until woken (no timer), so work written by another process must
 * wake them: each write PUBLISHes a wake in its own step, the bot's one subscriber hands it
 * to the merchant's loops, every (re)subscription sweeps every loop once (pub/sub may lose a
 * message while the subscription is down), and a claim left by a replica that died is due
 * again in its queue when it lapses, which a resting loop reads before it rests.
 */
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startMerchantsApp } from "../../../src/app-merchants.js";
import { loadMerchants } from "../../../src/config/merchants.js";
import {
  plainText,
  type SentMessage,
  type TelegramEmulator,
} from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { type Notice, noticeKey } from "../../../src/model/notice.js";
import { merchantKeyPrefix } from "../../../src/store/keys.js";
import { createRedisConnection, waitForReady } from "../../../src/store/redis/connection.js";
import { createRedisStores } from "../../../src/store/redis.js";
import type { Stores } from "../../../src/store/types.js";
import { isPromptIn, pressAndWait, sendAndWait } from "../../support/flows.js";
import { PrivateRedis, startBot } from "../../support/processes.js";
import {
  ADA,
  type MerchantsHarness,
  MO,
  PAUL,
  startMerchantsHarness,
  storesOf,
} from "./merchants-harness.js";

let h: MerchantsHarness | undefined;
const later: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const step of later.splice(0).reverse()) await step();
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Alpha's stores on a connection of their own: another process's writes, with no loops. */
async function otherWriter(redisUrl: string, started: MerchantsHarness): Promise<Stores> {
  const redis = createRedisConnection(redisUrl);
  await waitForReady(redis, 5_000);
  const prefix = merchantKeyPrefix(started.env.REDIS_KEY_PREFIX ?? "", "alpha");
  const stores = createRedisStores(redis, { prefix, retentionMs: 3_600_000 });
  later.push(() => stores.close());
  return stores;
}

/** Alpha's admins, who are told of a new PIN, as Telegram users. */
function admins(started: MerchantsHarness): void {
  started.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
  started.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
}

/** A notice for Alpha's admins (Ada among them): Paul set a new PIN. */
const newPin = (atMs = Date.now()): Notice => ({ kind: "pin_renewed", userId: PAUL, atMs });
const isNewPin = (m: SentMessage) => m.chatId === ADA && plainText(m).includes("New PIN");
const newPinsTold = (emulator: TelegramEmulator) => emulator.messages(ADA).filter(isNewPin).length;

describe("merchants' loops woken across processes", () => {
  it("delivers a Paid notice settled by another process: the wake, not a timer", async () => {
    const started = await startMerchantsHarness();
    h = started;
    started.sandbox.setSettleDelayMs(600_000);
    const ada = started.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
    const prompt = await sendAndWait(
      started.emulator,
      ada,
      "/pay 237670000001 4321",
      isPromptIn(ADA),
    );
    await pressAndWait(started.emulator, ada, prompt, "Pending");
    const { items } = await storesOf(started, "alpha").payouts.list({
      userId: ADA,
      offset: 0,
      limit: 1,
    });
    const payoutId = items[0]?.id ?? "";
    await sleep(300); // every loop has found nothing and rests until woken
    const writer = await otherWriter(started.env.REDIS_URL ?? "", started);
    const paid = started.emulator.waitForMessage(
      (m) => m.chatId === ADA && plainText(m).includes("Paid") && plainText(m).includes("4,321"),
      10_000,
    );
    // The settle move queues the payer's notice and PUBLISHes the wake in the same script.
    const moved = await writer.payouts.transition(
      payoutId,
      "settle_success",
      { apiStatus: "success", settledAtMs: Date.now() },
      { untrack: true },
    );
    expect(moved.ok).toBe(true);
    await paid;
  });

  it("delivers a notice another process queued, and none it queued without a wake until a resubscription sweeps", async () => {
    const redis = await PrivateRedis.start();
    later.push(() => redis.close());
    const started = await startMerchantsHarness({ env: { REDIS_URL: redis.url } });
    h = started;
    admins(started);
    await sleep(500); // the first rounds are done; the loops rest until woken
    const writer = await otherWriter(redis.url, started);

    const told = started.emulator.waitForMessage(isNewPin, 10_000);
    await writer.outbox.schedule(noticeKey(newPin()), Date.now(), { wake: true });
    await told;
    await sleep(1_000); // the notifier found nothing more and rests until woken

    // Queued with no wake (as if its wake was lost): no loop reads Redis on a timer.
    const before = newPinsTold(started.emulator);
    await writer.outbox.schedule(noticeKey(newPin(Date.now() + 1)), Date.now());
    await sleep(1_500);
    expect(newPinsTold(started.emulator)).toBe(before);

    // The subscriber's connection is lost: once subscribed again, every loop reads once.
    const admin = createRedisConnection(redis.url);
    later.push(async () => admin.quit());
    await waitForReady(admin, 5_000);
    const sweep = started.emulator.waitForMessage(isNewPin, 10_000);
    expect(await (admin as Redis).client("KILL", "TYPE", "pubsub")).toBe(1);
    await sweep;
  });

  it("delivers a notice whose claim a killed replica held, once the claim lapses", {
    timeout: 150_000,
  }, async () => {
    const started = await startMerchantsHarness();
    h = started;
    admins(started);
    // Only the replica started below runs at first.
    await started.app.stop();
    const other = await startBot({ ...started.env, HTTP_PORT: "0" });
    later.push(() => other.process.kill("SIGKILL"));
    const writer = await otherWriter(started.env.REDIS_URL ?? "", started);
    await sleep(1_000); // its first rounds are done
    // Its delivery hangs: the claim is held when the process dies.
    const sentBefore = started.emulator.countCalls("sendMessage");
    started.emulator.delayNext("sendMessage", 600_000);
    const key = noticeKey(newPin());
    await writer.outbox.schedule(key, Date.now(), { wake: true });
    const hung = Date.now() + 20_000;
    while (started.emulator.countCalls("sendMessage") === sentBefore) {
      if (Date.now() > hung) throw new Error("the other replica never tried to deliver");
      await sleep(50);
    }
    const claimedUntil = await writer.outbox.dueAt(key);
    expect(claimedUntil).toBeGreaterThan(Date.now());
    await other.process.kill("SIGKILL");
    const told = started.emulator.waitForMessage(isNewPin, 120_000);
    // This replica rests until woken or the claim's lapse (read at its start), never polling.
    const again = await startMerchantsApp({
      env: started.env,
      merchants: loadMerchants(started.env).merchants,
      logger: silentLogger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
    });
    later.push(() => again.stop());
    await told;
  });
});
