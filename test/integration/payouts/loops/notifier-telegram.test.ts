/**
 * The notifier against a slow Telegram, two notifiers (as two replicas) sharing one outbox
 * on a real Redis, delivering through the emulator. A notice claimed by one must not be
 * taken by the other while the first is still delivering it, however slow Telegram is.
 * A Paid notice whose prompt edit the pacer holds back is retried until the prompt is
 * final, its push sent once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramMessenger } from "../../../../src/bot/messenger/messenger.js";
import { TelegramPacer } from "../../../../src/bot/telegram/pacing.js";
import { boundedTelegram, type TelegramCallTag } from "../../../../src/bot/telegram/transport.js";
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

  /**
   * A notifier whose client is paced at one message call per 2 s across chats, waiting at
   * most 1 s for a turn; each push to the payer is made 2.2 s after it is asked for (a tag
   * that waits), so it always finds a free turn. A slot taken just before the notice then
   * makes the pacer refuse the prompt's edit (429, retry_after 2) but let its push through.
   */
  async function pacedNotice(options: { maxAttempts?: number }) {
    const setup = boundedTelegram(emulator.token, emulator.apiRoot, 5_000);
    const prompt = await setup.sendMessage(PAYER, "⏳ Pending");
    const payout = acceptedPayout(Date.now(), { chatId: PAYER, messageId: prompt.message_id });
    await stores.payouts.create({ ...payout, state: "awaiting_confirmation" });
    await stores.payouts.transition(payout.id, "confirm");
    await stores.payouts.transition(payout.id, "accepted", { paymentId: payout.paymentId });
    const pacer = new TelegramPacer({ broadcastPerSecond: 0.5, maxWaitMs: 1_000 });
    const slowPush: TelegramCallTag = {
      before: async (method) => {
        if (method === "sendMessage") await sleep(2_200);
        return undefined;
      },
      after: async () => undefined,
    };
    const telegram = boundedTelegram(emulator.token, emulator.apiRoot, 5_000, {
      pacer,
      broadcast: true,
      tag: slowPush,
    });
    const notifier = new Notifier({
      stores,
      messenger: new TelegramMessenger(telegram, stores, silentLogger),
      logger: silentLogger,
      tickMs: 50,
      retryBaseMs: 200,
      ...options,
    });
    notifiers.push(notifier);
    // Another chat's notice takes the turn now: the edit's is 2 s away, past the 1 s wait.
    await pacer.before("sendMessage", { chat_id: PAYER + 1 }, true);
    await stores.payouts.transition(payout.id, "settle_success", { settledAtMs: Date.now() });
    notifier.start();
    const paid = () =>
      emulator
        .messages(PAYER)
        .filter((m) => m.messageId !== prompt.message_id && plainText(m).includes("Paid"));
    const promptText = () => {
      const shown = emulator.messages(PAYER).find((m) => m.messageId === prompt.message_id);
      return shown ? plainText(shown) : "";
    };
    const editsAsked = () =>
      emulator.calls.filter((call) => call.method === "editMessageText").length;
    return { payout, paid, promptText, editsAsked };
  }

  it("retries a Paid notice whose prompt edit the pacer held back: the prompt ends final, one push", async () => {
    const { payout, paid, promptText, editsAsked } = await pacedNotice({});

    await waitUntil(() => paid().length >= 1, "the Paid push", 15_000);
    await waitUntil(() => promptText().includes("Completed"), "the prompt's final edit", 5_000);
    await waitUntil(async () => (await stores.outbox.size()) === 0, "the outbox empty", 5_000);
    // Past a retry's delay: a second push would be on its way by now.
    await sleep(1_000);
    expect(paid()).toHaveLength(1);
    // The first edit was refused by the pacer (it never reached the emulator); the retry's went.
    expect(editsAsked()).toBe(1);
    expect((await stores.payouts.get(payout.id))?.notifiedAtMs).toBeDefined();
  });

  it("sends the push without the edit on a Paid notice's last attempt", async () => {
    const { paid, promptText, editsAsked } = await pacedNotice({ maxAttempts: 1 });

    await waitUntil(() => paid().length >= 1, "the Paid push", 15_000);
    await waitUntil(async () => (await stores.outbox.size()) === 0, "the outbox empty", 5_000);
    // The one edit asked for was refused by the pacer (it never reached the emulator).
    expect(editsAsked()).toBe(0);
    expect(promptText()).toContain("Pending");
    expect(paid()).toHaveLength(1);
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
