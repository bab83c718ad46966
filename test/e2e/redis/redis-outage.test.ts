/**
 * Redis stopped under a running bot process and started again (a private redis-server
 * with its AOF in a temporary directory, so the data survives the restart): users are told
 * at once that payouts cannot be taken, health says 503, the process stays up, and it
 * recovers by itself without ever sending a payment twice.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import {
  messagesWith,
  payAndConfirm,
  pressAndWait,
  promptRecord,
  showPrompt,
} from "../../support/flows.js";
import { PAYER_ID } from "../../support/harness.js";
import { healthStatus, PrivateRedis, startBot, waitUntil } from "../../support/processes.js";
import { startWorld, type World } from "../../support/world.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const UNAVAILABLE = "cannot take payouts right now";

describe("Redis going away under a running bot", () => {
  let redis: PrivateRedis;
  let world: World;

  beforeEach(async () => {
    redis = await PrivateRedis.start({ persist: true });
    world = await startWorld({ redisUrl: redis.url });
  });

  afterEach(async () => {
    await world.close();
    await redis.close();
  });

  it("tells users it cannot take payouts, stays up, and recovers by itself when Redis returns", async () => {
    const bot = await startBot(world.env);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(world.emulator, payer, "/pay 237670000001 1000");
    // A prompt shown before the outage, confirmed during it.
    const prompt = await showPrompt(world.emulator, payer, "/pay 237690000001 2000");
    // Its record is stored just after it is sent: Redis stops only once it is.
    await promptRecord(world, prompt);

    await redis.stop();
    await waitUntil(async () => (await healthStatus(bot.url)) === 503, "healthz to answer 503");
    // Past the next renewal of the polling lease, which now fails: the bot still listens.
    await bot.process.waitForLog((line) => line.msg.startsWith("cannot renew the polling lease"));

    const refusal = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes(UNAVAILABLE),
      5000,
    );
    await payer.sendText("/pay 237670000001 3000");
    await refusal;
    const pressed = await payer.pressButton(prompt, 0);
    const answer = await world.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain(UNAVAILABLE);
    expect(world.sandbox.countRequests(DISBURSE)).toBe(1);
    expect(bot.process.exitInfo).toBeUndefined();

    await redis.start();
    await waitUntil(async () => (await healthStatus(bot.url)) === 200, "healthz to answer 200");
    // The prompt from before the outage is still there (AOF) and now goes through, once.
    await pressAndWait(
      world.emulator,
      payer,
      prompt,
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid: 2,000 FCFA"),
      { timeoutMs: 10_000 },
    );
    const paidAgain = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid: 4,000 FCFA"),
      10_000,
    );
    await payAndConfirm(world.emulator, payer, "/pay 237670000001 4000");
    await paidAgain;

    expect(world.sandbox.countRequests(DISBURSE)).toBe(3);
    const amounts = world.sandbox.requests
      .filter((r) => r.method === "POST" && r.path === "/disburse")
      .map((r) => r.body);
    expect(amounts).toEqual([
      { amount: 1000, phoneNumber: "237670000001" },
      { amount: 2000, phoneNumber: "237690000001" },
      { amount: 4000, phoneNumber: "237670000001" },
    ]);
    expect(messagesWith(world.emulator, PAYER_ID, "Paid")).toHaveLength(3);
    expect(bot.process.exitInfo).toBeUndefined();
  });
});
