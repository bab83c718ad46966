/**
 * The bot on a real Redis Cluster (REDIS_CLUSTER_NODES; test/support/cluster.ts: three
 * primaries with a replica each), end to end through the Telegram emulator and the
 * sandbox: the environment's one merchant pays, its keys under the default merchant's hash
 * tag; two merchants (MERCHANTS_FILE) pay, each on its own slot, with the global keys (a
 * person's /merchant choice, a message's merchant) beside them.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { type Notice, noticeKey } from "../../../src/model/notice.js";
import {
  DEFAULT_MERCHANT_ID,
  globalKeys,
  keys,
  merchantKeyPrefix,
} from "../../../src/store/keys.js";
import {
  createRedisConnection,
  dropPrefix,
  primaries,
  waitForReady,
} from "../../../src/store/redis/connection.js";
import { createRedisStores } from "../../../src/store/redis.js";
import { clusterForFile } from "../../support/cluster.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { PAYER_ID, startHarness } from "../../support/harness.js";
import {
  ADA,
  BEA,
  MO,
  PAUL,
  startMerchantsHarness,
  storesOf,
} from "../merchants/merchants-harness.js";

const file = clusterForFile();

/** The bot's environment on the cluster: its nodes, and no REDIS_URL (refused beside them). */
function clusterEnv(): Record<string, string> {
  return { ...file.cluster.env(), REDIS_URL: "" };
}

/** Every key under `prefix`, on every primary. */
async function keysUnder(prefix: string): Promise<string[]> {
  const found = await Promise.all(primaries(file.redis).map((node) => node.keys(`${prefix}*`)));
  return found.flat();
}

async function slotOf(key: string): Promise<number> {
  const [node] = primaries(file.redis);
  if (!node) throw new Error("no primary");
  return Number(await node.cluster("KEYSLOT", key));
}

describe("the bot on a Redis Cluster", () => {
  it("pays from /pay to Paid, its keys under the default merchant's hash tag", async () => {
    const h = await startHarness({ env: clusterEnv() });
    try {
      const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
      const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
      const paid = h.emulator.waitForMessage(
        (m) =>
          m.chatId === PAYER_ID &&
          m.messageId !== prompt.messageId &&
          plainText(m).includes("Paid"),
        20_000,
      );
      await payer.pressButton(prompt, 0);
      expect(plainText(await paid)).toContain("5,000 FCFA");
      expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);

      const tagged = merchantKeyPrefix(h.prefix, DEFAULT_MERCHANT_ID);
      const found = await keysUnder(h.prefix);
      expect(found.length).toBeGreaterThan(5);
      // Every key of the bot carries the tag: one slot, whichever primary holds it.
      expect(found.filter((key) => !key.startsWith(tagged))).toEqual([]);
      const slots = new Set(await Promise.all(found.map((key) => slotOf(key))));
      expect(slots.size).toBe(1);
      const [payout] = (await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 }))
        .items;
      expect(payout?.state).toBe("success");
      expect(found).toContain(keys(tagged).payout(payout?.id ?? ""));
    } finally {
      await h.close();
      await dropPrefix(file.redis, h.prefix);
    }
  });

  it("pays for two merchants, each on its own slot, with the global keys beside them", async () => {
    const h = await startMerchantsHarness({ env: clusterEnv() });
    try {
      // Mo pays in Alpha (his first), then switches to Bravo and pays there; Bea pays in Bravo.
      const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
      const bea = h.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
      const inAlpha = await sendAndWait(h.emulator, mo, "/pay 237670000001 5000", isPromptIn(MO));
      expect(plainText(inAlpha)).toContain("Alpha Couriers");
      await mo.pressButton(inAlpha, 0);
      await h.emulator.waitForMessage(isPromptReading(inAlpha, "Pending"), 20_000);

      const list = await sendAndWait(h.emulator, mo, "/merchant", isPromptIn(MO));
      const switched = h.emulator.waitForMessage(isPromptReading(list, "now act for Bravo"));
      await mo.pressButton(list, 1);
      await switched;
      const inBravo = await sendAndWait(h.emulator, mo, "/pay 237670000002 7000", isPromptIn(MO));
      expect(plainText(inBravo)).toContain("Bravo & Sons");
      await mo.pressButton(inBravo, 0);
      await h.emulator.waitForMessage(isPromptReading(inBravo, "Pending"), 20_000);
      const byBea = await sendAndWait(h.emulator, bea, "/pay 237670000003 9000", isPromptIn(BEA));
      await bea.pressButton(byBea, 0);
      await h.emulator.waitForMessage(isPromptReading(byBea, "Pending"), 20_000);

      const amounts = async (id: string, userId: number) =>
        (await storesOf(h, id).payouts.list({ userId, offset: 0, limit: 5 })).items.map(
          (payout) => payout.amount,
        );
      expect(await amounts("alpha", MO)).toEqual([5000]);
      expect(await amounts("bravo", MO)).toEqual([7000]);
      expect(await amounts("bravo", BEA)).toEqual([9000]);
      expect(await amounts("alpha", PAUL)).toEqual([]);

      const alpha = merchantKeyPrefix(h.prefix, "alpha");
      const bravo = merchantKeyPrefix(h.prefix, "bravo");
      const alphaSlots = new Set(await Promise.all((await keysUnder(alpha)).map(slotOf)));
      const bravoSlots = new Set(await Promise.all((await keysUnder(bravo)).map(slotOf)));
      expect(alphaSlots.size).toBe(1);
      expect(bravoSlots.size).toBe(1);
      expect([...alphaSlots][0]).not.toBe([...bravoSlots][0]);
      // The person's choice is a global key, read and written alone.
      expect(await file.redis.get(globalKeys(h.prefix).currentMerchant(MO))).toBe("bravo");
    } finally {
      await h.close();
      await dropPrefix(file.redis, h.prefix);
    }
  });

  it("wakes a merchant's resting loops from another connection's write, and sweeps after losing the subscriber's node", async () => {
    const h = await startMerchantsHarness({ env: clusterEnv() });
    const alpha = createRedisStores(file.redis, {
      prefix: merchantKeyPrefix(h.prefix, "alpha"),
      retentionMs: 3_600_000,
      borrowed: true,
    });
    const adaChat = h.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
    h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const newPin = (atMs: number): Notice => ({ kind: "pin_renewed", userId: PAUL, atMs });
    const isNewPin = (m: SentMessage) =>
      m.chatId === adaChat.id && plainText(m).includes("New PIN");
    try {
      await sleep(1_000); // the first rounds are done; the loops rest until woken
      // Written on the merchant's slot; PUBLISHed there; heard on the subscriber's node.
      const told = h.emulator.waitForMessage(isNewPin, 10_000);
      await alpha.outbox.schedule(noticeKey(newPin(Date.now())), Date.now(), { wake: true });
      await told;
      await sleep(1_000);

      // Queued with no wake (as if lost); then the subscriber's connection goes, wherever it is.
      const swept = h.emulator.waitForMessage(isNewPin, 15_000);
      await alpha.outbox.schedule(noticeKey(newPin(Date.now() + 1)), Date.now());
      const killed = await Promise.all(
        file.cluster.nodes.map(async (node) => {
          const admin = createRedisConnection(node.url);
          try {
            await waitForReady(admin, 5_000);
            return Number(await admin.call("CLIENT", "KILL", "TYPE", "pubsub"));
          } finally {
            admin.disconnect();
          }
        }),
      );
      expect(killed.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(1);
      await swept;
    } finally {
      await h.close();
      await dropPrefix(file.redis, h.prefix);
    }
  });
});
