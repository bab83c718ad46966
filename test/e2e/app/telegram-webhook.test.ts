/**
 * Telegram webhook mode (TELEGRAM_WEBHOOK_URL + TELEGRAM_WEBHOOK_SECRET): the bot process
 * registers its URL with the secret, the emulator POSTs updates there, requests without
 * the secret are refused, and no replica long-polls.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { messagesWith, payAndConfirm } from "../../support/flows.js";
import { PAYER_ID } from "../../support/harness.js";
import { freePort } from "../../support/net.js";
import { type BotProcess, startBot } from "../../support/processes.js";
import { type World, worldPerTest } from "../../support/world.js";

const SECRET = "webhook-secret_42";

/** A text message update as Telegram would POST it. */
function textUpdate(updateId: number, userId: number, text: string) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      from: { id: userId, is_bot: false, first_name: "Paul", language_code: "en" },
      chat: { id: userId, type: "private", first_name: "Paul" },
      text,
      entities: [{ type: "bot_command", offset: 0, length: text.split(" ")[0]?.length ?? 0 }],
    },
  };
}

async function postUpdate(bot: BotProcess, update: unknown, secret?: string): Promise<number> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (secret !== undefined) headers["x-telegram-bot-api-secret-token"] = secret;
  const response = await fetch(`${bot.url}/telegram`, {
    method: "POST",
    headers,
    body: JSON.stringify(update),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Starts a bot in webhook mode on its own port, its URL registered with the emulator. */
async function startWebhookBot(world: World): Promise<BotProcess> {
  const port = await freePort();
  return startBot({
    ...world.env,
    HTTP_PORT: String(port),
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
  });
}

describe("Telegram webhook mode", () => {
  const world = worldPerTest();

  it("takes updates from Telegram's POSTs and runs a payout end to end", async () => {
    const bot = await startWebhookBot(world);
    expect(bot.process.hasLog((line) => line.mode === "webhook")).toBe(true);
    expect(world.emulator.webhook.url).toBe(`${bot.url}/telegram`);
    expect(world.emulator.webhook.secretToken).toBe(SECRET);

    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const notice = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid"),
      10_000,
    );
    await payAndConfirm(world.emulator, payer, "/pay 237670000001 2500 fuel");
    expect(plainText(await notice)).toContain("2,500 FCFA");
    expect(world.emulator.webhook.deliveredCount).toBeGreaterThanOrEqual(2);
    expect(world.emulator.countCalls("getUpdates")).toBe(0);
    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("refuses a POST without the secret token (401) and acts on nothing in it", async () => {
    const bot = await startWebhookBot(world);
    world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    expect(await postUpdate(bot, textUpdate(900_001, PAYER_ID, "/help"))).toBe(401);
    expect(await postUpdate(bot, textUpdate(900_002, PAYER_ID, "/help"), "wrong-secret")).toBe(401);
    // The same update with the secret is answered: the refusals were about the secret alone.
    const help = world.emulator.waitForMessage((m) => m.chatId === PAYER_ID);
    expect(await postUpdate(bot, textUpdate(900_003, PAYER_ID, "/help"), SECRET)).toBe(200);
    expect(plainText(await help)).toContain("/pay");
    expect(world.emulator.messages(PAYER_ID)).toHaveLength(1);
  });

  it("runs replicas without any long polling: each handles the updates it is given", async () => {
    const first = await startWebhookBot(world);
    const second = await startWebhookBot(world);
    // One webhook per bot: the emulator delivers to the URL set last, as Telegram does.
    expect(world.emulator.webhook.url).toBe(`${second.url}/telegram`);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const notice = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid"),
      10_000,
    );
    await payAndConfirm(world.emulator, payer, "/pay 237690000001 3000");
    await notice;
    // A load balancer may send an update to any replica: the first one answers too.
    const help = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("/history"),
    );
    expect(await postUpdate(first, textUpdate(900_010, PAYER_ID, "/help"), SECRET)).toBe(200);
    await help;

    expect(world.emulator.countCalls("getUpdates")).toBe(0);
    for (const bot of [first, second])
      expect(bot.process.hasLog((line) => line.msg === "this replica now polls Telegram")).toBe(
        false,
      );
    expect(messagesWith(world.emulator, PAYER_ID, "Paid")).toHaveLength(1);
    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });
});
