/**
 * A press's answer in the webhook's reply (src/http/telegram-reply.ts): the HTTP server holds
 * a callback query's POST for at most its bound, and the bot's first `answerCbQuery` within
 * it travels in the reply instead of a call of its own. Here the server, the bot's context
 * and its Bot API client are the product's, in this process, against the emulator; a test
 * holds the handler to make it slower than the bound.
 */
import { Telegraf } from "telegraf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BotContext } from "../../../src/bot/context.js";
import { boundedTelegram } from "../../../src/bot/telegram/transport.js";
import {
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../src/dev/telegram-emulator/index.js";
import { type HttpServerHandle, startHttpServer } from "../../../src/http/server.js";
import { silentLogger } from "../../../src/logger.js";

const PATH = "/telegram";
const SECRET = "reply-secret";
const USER = 77;

let emulator: TelegramEmulator;
let server: HttpServerHandle | undefined;

beforeEach(async () => {
  emulator = await startTelegramEmulator({ webhookRetryDelayMs: 10 });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await emulator.close();
});

/** A bot with the product's context and client, served by the product's HTTP server. */
async function webhookBot(replyWithinMs: number): Promise<Telegraf<BotContext>> {
  const bot = new Telegraf<BotContext>(emulator.token, {
    contextType: BotContext,
    telegram: { apiRoot: emulator.apiRoot, webhookReply: false },
  });
  bot.telegram = boundedTelegram(emulator.token, emulator.apiRoot);
  Object.assign(bot.context, { telegram: bot.telegram });
  bot.botInfo = await bot.telegram.getMe();
  server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    health: async () => true,
    telegramWebhook: {
      path: PATH,
      secret: SECRET,
      replyWithinMs,
      handleUpdate: (update) => bot.handleUpdate(update as Parameters<typeof bot.handleUpdate>[0]),
    },
  });
  await bot.telegram.setWebhook(`${server.url}${PATH}`, { secret_token: SECRET });
  return bot;
}

/** The bot's answers to one press, made in a reply or as calls of their own. */
function answersTo(callbackQueryId: string) {
  return emulator.calls.filter(
    (call) =>
      call.method === "answerCallbackQuery" && call.params.callback_query_id === callbackQueryId,
  );
}

async function press(data: string): Promise<string> {
  const user = emulator.user({ id: USER });
  const { callbackQueryId } = await user.pressCallbackData(1, data);
  return callbackQueryId;
}

describe("a press answered in the webhook's reply", () => {
  it("puts an answer made within the bound in the reply, and makes no call of its own", async () => {
    const bot = await webhookBot(1000);
    let answered: unknown;
    bot.action("quick", async (ctx) => {
      answered = await ctx.answerCbQuery("Done");
    });
    const id = await press("quick");
    expect((await emulator.waitForCallbackAnswer(id)).text).toBe("Done");
    expect(answersTo(id)).toEqual([
      expect.objectContaining({
        params: { callback_query_id: id, text: "Done" },
        viaWebhookReply: true,
      }),
    ]);
    // The handler is told what Telegram answers answerCallbackQuery with.
    expect(answered).toBe(true);
  });

  it("carries an alert's text and show_alert in the reply", async () => {
    const bot = await webhookBot(1000);
    bot.action("alert", (ctx) => ctx.answerCbQuery("Not yours", { show_alert: true }));
    const id = await press("alert");
    const answer = await emulator.waitForCallbackAnswer(id);
    expect([answer.text, answer.showAlert]).toEqual(["Not yours", true]);
    expect(answersTo(id)).toEqual([
      expect.objectContaining({
        params: { callback_query_id: id, text: "Not yours", show_alert: true },
        viaWebhookReply: true,
      }),
    ]);
  });

  it("answers 200 at the bound when the handler is slower, and the answer goes as a call, once", async () => {
    const bot = await webhookBot(20);
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    bot.action("slow", async (ctx) => {
      await released;
      await ctx.answerCbQuery("Late");
    });
    const id = await press("slow");
    // The POST is answered while the handler still waits: the chat's next update can come.
    await expect.poll(() => emulator.webhook.deliveredCount).toBe(1);
    expect(answersTo(id)).toEqual([]);
    release();
    expect((await emulator.waitForCallbackAnswer(id)).text).toBe("Late");
    expect(answersTo(id)).toEqual([
      expect.objectContaining({ params: { callback_query_id: id, text: "Late" } }),
    ]);
    expect(answersTo(id)[0]?.viaWebhookReply).toBeUndefined();
  });

  it("answers a press once, whether its handler answers at once, late or after failing", async () => {
    const bot = await webhookBot(1000);
    // As createBot's catch: a failed handler's press is answered unless it already was.
    bot.catch(async (_error, ctx) => {
      if (ctx.callbackQuery && !ctx.callbackAnswered) await ctx.answerCbQuery("Failed");
    });
    bot.action("twice", async (ctx) => {
      await ctx.answerCbQuery("First");
      throw new Error("the handler fails after answering");
    });
    bot.action("none", () => undefined);
    const id = await press("twice");
    await emulator.waitForCallbackAnswer(id);
    const unanswered = await press("none");
    await expect.poll(() => emulator.webhook.deliveredCount).toBe(2);
    expect(answersTo(id)).toHaveLength(1);
    expect(emulator.callbackAnswers.filter((a) => a.callbackQueryId === id)).toHaveLength(1);
    // A handler that answers nothing leaves the POST answered 200, empty, when it ends.
    expect(answersTo(unanswered)).toEqual([]);
  });

  it("sends the answer as a call, waiting its turn, while a 429 holds the whole bot", async () => {
    const bot = await webhookBot(1000);
    bot.action("held", (ctx) => ctx.answerCbQuery("After the wait"));
    // A 429 on a call that names no chat holds every call of the bot for its retry_after;
    // an answer in the reply would run into it with no one told, so it waits as a call.
    emulator.failNext("answerCallbackQuery", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      retry_after: 1,
    });
    await expect(bot.telegram.answerCbQuery("4000000000000000000", "x")).rejects.toThrow(/429/);
    const id = await press("held");
    expect((await emulator.waitForCallbackAnswer(id)).text).toBe("After the wait");
    expect(answersTo(id)).toHaveLength(1);
    expect(answersTo(id)[0]?.viaWebhookReply).toBeUndefined();
  });

  it("puts nothing in the reply when the bound is 0 (off)", async () => {
    const bot = await webhookBot(0);
    bot.action("off", (ctx) => ctx.answerCbQuery("As a call"));
    const id = await press("off");
    await emulator.waitForCallbackAnswer(id);
    expect(answersTo(id)).toHaveLength(1);
    expect(answersTo(id)[0]?.viaWebhookReply).toBeUndefined();
  });
});
