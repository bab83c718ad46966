/**
 * Confirm's edit to "Pending" goes out alongside the answer's durable record, not after it
 * (issue 37's latency). A crash in between, the edit shown and the record never written,
 * leaves the payout in `submitting` without its payment id: recovery ends it as `unknown`
 * (the stranded rule) with no second POST, and the payer is told, the prompt no longer
 * reading "Pending". Real processes, killed with SIGKILL, on a Redis of the test's own
 * (its writes are paused between the claim and the record, which no other test may feel).
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { payAndConfirm } from "../../support/flows.js";
import { ADMIN_ID, PAYER_ID } from "../../support/harness.js";
import { PrivateRedis, startBot, waitUntil } from "../../support/processes.js";
import { startWorld } from "../../support/world.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("Confirm's edit to Pending before the answer's record", () => {
  it("shows Pending without waiting for the record, and a crash before the record ends unknown with one POST, the payer told", async () => {
    const redis = await PrivateRedis.start();
    const world = await startWorld({ redisUrl: redis.url });
    const control = new Redis(redis.url);
    try {
      // The answer comes late enough to pause the writes between the claim and it.
      world.sandbox.injectFault({ ...DISBURSE, delayMs: 1500 });
      const first = await startBot(world.env);
      const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
      world.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
      const prompt = await payAndConfirm(
        world.emulator,
        payer,
        "/pay 237670000001 7000",
        "Sending",
      );
      await waitUntil(() => world.sandbox.countRequests(DISBURSE) === 1, "the POST /disburse");

      // The claim is written; from now on every write waits (reads go on): the answer's
      // record cannot be written, and the edit to Pending must not wait for it.
      await control.call("CLIENT", "PAUSE", "30000", "WRITE");
      const readsPending = (text: string) => text.includes("Pending");
      await world.emulator.waitForMessage(
        (m) =>
          m.chatId === PAYER_ID && m.messageId === prompt.messageId && readsPending(plainText(m)),
        10_000,
      );
      await first.process.kill("SIGKILL");
      await control.call("CLIENT", "UNPAUSE");

      // The crash came before the record: the payment exists, the payout does not know it.
      await waitUntil(() => world.sandbox.snapshot().payments.length === 1, "the payment");
      const [stranded] = await world.stores.payouts.listInState("submitting");
      if (!stranded) throw new Error("no payout left in submitting");
      expect(stranded.paymentId).toBeUndefined();

      // Down past the stranded limit (5 min): the next process marks it unknown, tells the
      // payer and the admins, edits the prompt, and sends nothing.
      const longAgoMs = Date.now() - 6 * 60_000;
      await world.stores.payouts.update(stranded.id, {
        submittedAtMs: longAgoMs,
        sentAtMs: longAgoMs,
      });
      await control.del(keys(world.prefix).lease("telegram-poller"));
      const told = world.emulator.waitForMessage(
        (m) => m.chatId === PAYER_ID && plainText(m).includes("Outcome unknown"),
        20_000,
      );
      const toldAdmin = world.emulator.waitForMessage(
        (m) => m.chatId === ADMIN_ID && plainText(m).includes("Outcome unknown"),
        20_000,
      );
      await startBot(world.env);
      await Promise.all([told, toldAdmin]);
      expect((await world.stores.payouts.get(stranded.id))?.state).toBe("unknown");
      await waitUntil(() => {
        const shown = world.emulator.message(PAYER_ID, prompt.messageId);
        return shown !== undefined && !readsPending(plainText(shown));
      }, "the prompt to stop reading Pending");
      expect(plainText(world.emulator.message(PAYER_ID, prompt.messageId) ?? prompt)).toContain(
        "Outcome unknown",
      );
      expect(world.sandbox.countRequests(DISBURSE)).toBe(1);
    } finally {
      await control.quit();
      await world.close();
      await redis.close();
    }
  }, 60_000);
});
