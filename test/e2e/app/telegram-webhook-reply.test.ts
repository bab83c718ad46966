/**
 * Webhook mode's answer in the reply (TELEGRAM_WEBHOOK_REPLY_MS): a press's first answer,
 * made within the bound, travels in the HTTP answer to Telegram's POST, and the emulator
 * runs it as Telegram does; no separate answerCallbackQuery is made, and no press is
 * answered twice. The bound here is the largest allowed, so a busy test machine cannot
 * push the bot's answer past it; the slower-than-the-bound case is in
 * test/integration/http/telegram-reply.test.ts, where the test holds the handler.
 */
import { describe, expect, it } from "vitest";
import type { EmulatorCall } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptReading, showPrompt } from "../../support/flows.js";
import { PAYER_ID, STRANGER_ID } from "../../support/harness.js";
import { freePort } from "../../support/net.js";
import { type BotProcess, startBot } from "../../support/processes.js";
import { type World, worldPerTest } from "../../support/world.js";

async function startWebhookBot(world: World, replyMs: string): Promise<BotProcess> {
  const port = await freePort();
  return startBot({
    ...world.env,
    HTTP_PORT: String(port),
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
    TELEGRAM_WEBHOOK_SECRET: "reply-secret",
    TELEGRAM_WEBHOOK_REPLY_MS: replyMs,
  });
}

function answersTo(world: World, callbackQueryId: string): EmulatorCall[] {
  return world.emulator.calls.filter(
    (call) =>
      call.method === "answerCallbackQuery" && call.params.callback_query_id === callbackQueryId,
  );
}

describe("a press answered in the webhook's reply", () => {
  const world = worldPerTest();

  it("answers Confirm with 'Sending…' in the reply, and pays once", async () => {
    await startWebhookBot(world, "1000");
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(world.emulator, payer, "/pay 237670000001 2500 fuel");
    const pending = world.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    const { callbackQueryId } = await payer.pressButton(prompt, 0);
    await pending;

    const answer = await world.emulator.waitForCallbackAnswer(callbackQueryId);
    expect(answer.text).toBe("Sending…");
    expect(answersTo(world, callbackQueryId)).toEqual([
      expect.objectContaining({ viaWebhookReply: true }),
    ]);
    expect(world.emulator.countCalls("answerCallbackQuery")).toBe(1);
    expect(world.emulator.callbackAnswers).toHaveLength(1);
    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("carries an alert (show_alert) in the reply: a stranger's press is refused", async () => {
    await startWebhookBot(world, "1000");
    const stranger = world.emulator.user({ id: STRANGER_ID, firstName: "Eve", languageCode: "en" });
    const { callbackQueryId } = await stranger.pressCallbackData(1, "c:abcdefgh12");

    const answer = await world.emulator.waitForCallbackAnswer(callbackQueryId);
    expect(answer.showAlert).toBe(true);
    expect(answer.text).toContain(String(STRANGER_ID));
    const [call, ...more] = answersTo(world, callbackQueryId);
    expect(more).toEqual([]);
    expect(call).toMatchObject({ viaWebhookReply: true, params: { show_alert: true } });
    expect(call?.params.text).toBe(answer.text);
  });

  it("makes the answer a call of its own with TELEGRAM_WEBHOOK_REPLY_MS=0", async () => {
    await startWebhookBot(world, "0");
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(world.emulator, payer, "/pay 237670000001 2500");
    const pending = world.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    const { callbackQueryId } = await payer.pressButton(prompt, 0);
    await pending;

    expect((await world.emulator.waitForCallbackAnswer(callbackQueryId)).text).toBe("Sending…");
    const calls = answersTo(world, callbackQueryId);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.viaWebhookReply).toBeUndefined();
  });
});
