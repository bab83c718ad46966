/**
 * The notifier against a slow Telegram, two notifiers (as two replicas) sharing one outbox
 * on a real Redis, delivering through the emulator. A notice claimed by one must not be
 * taken by the other while the first is still delivering it, however slow Telegram is.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramMessenger } from "../../../../src/bot/messenger/messenger.js";
import { boundedTelegram } from "../../../../src/bot/telegram/transport.js";
import {
  plainText,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../../src/logger.js";
import { DeliveryError, Notifier } from "../../../../src/payouts/loops/notifier.js";
import { createRedisConnection, waitForReady } from "../../../../src/store/redis/connection.js";
import { createRedisStores } from "../../../../src/store/redis.js";
import type { Stores } from "../../../../src/store/types.js";
import { acceptedPayout } from "../../../support/payouts.js";
import { waitUntil } from "../../../support/processes.js";
import { dropTestPrefix, testPrefix, testRedisUrl } from "../../../support/redis.js";

const PAYER = 1002;

describe("the notifier with a slow Telegram", () => {
  let emulator: TelegramEmulator;
  let stores: Stores;
  let prefix: string;
  const notifiers: Notifier[] = [];

  beforeEach(async () => {
    emulator = await startTelegramEmulator();
    emulator.user({ id: PAYER, firstName: "Paul" });
    prefix = testPrefix("notify");
    const redis = createRedisConnection(testRedisUrl());
    await waitForReady(redis, 5000);
    stores = createRedisStores(redis, { prefix, retentionMs: 86_400_000 });
  });

  afterEach(async () => {
    await Promise.all(notifiers.splice(0).map((notifier) => notifier.stop()));
    await stores.close();
    await emulator.close();
    await dropTestPrefix(prefix);
  });

  function messenger(callTimeoutMs: number): TelegramMessenger {
    const telegram = boundedTelegram(emulator.token, emulator.apiRoot, callTimeoutMs);
    return new TelegramMessenger(telegram, stores, silentLogger);
  }

  async function settled(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const payout = acceptedPayout(Date.now(), { chatId: PAYER });
      await stores.payouts.create({ ...payout, state: "awaiting_confirmation" });
      await stores.payouts.transition(payout.id, "confirm");
      await stores.payouts.transition(payout.id, "accepted", { paymentId: payout.paymentId });
      await stores.payouts.transition(payout.id, "settle_success", { settledAtMs: Date.now() });
      ids.push(payout.paymentId ?? "");
    }
    return ids;
  }

  it("delivers each notice once when two notifiers share the outbox and every send is slow", async () => {
    const paymentIds = await settled(7);
    emulator.delayNext("sendMessage", 800, 7);
    for (let index = 0; index < 2; index++) {
      const notifier = new Notifier({
        stores,
        messenger: messenger(1_000),
        logger: silentLogger,
        tickMs: 50,
        leaseMs: 3_500,
        callTimeoutMs: 1_000,
      });
      notifiers.push(notifier);
      notifier.start();
    }

    const paid = () => emulator.messages(PAYER).filter((m) => plainText(m).includes("Paid"));
    await waitUntil(() => paid().length >= 7, "seven notices", 15_000);
    // Longer than a lease: a notice taken twice would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 4_000));

    expect(paid()).toHaveLength(7);
    for (const id of paymentIds) {
      expect(paid().filter((m) => plainText(m).includes(id))).toHaveLength(1);
    }
  });

  it("gives up on a send Telegram leaves unanswered past the call deadline, to try again later", async () => {
    const [paymentId] = await settled(1);
    const payout = await stores.payouts.findByPaymentId(paymentId ?? "");
    if (!payout) throw new Error("no payout");
    emulator.delayNext("sendMessage", 5_000);

    const startedMs = performance.now();
    const failure = await messenger(300)
      .deliver({ kind: "settled", payout })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect((failure as DeliveryError).permanent).toBe(false);
    // An upper bound with room: the point is that it did not wait the 5 s out.
    expect(performance.now() - startedMs).toBeLessThan(4_000);
  });

  it("refuses a lease that a delivery at the call deadline could outlast", () => {
    expect(
      () =>
        new Notifier({
          stores,
          messenger: messenger(10_000),
          leaseMs: 15_000,
          callTimeoutMs: 10_000,
        }),
    ).toThrow(/lease/);
  });
});
