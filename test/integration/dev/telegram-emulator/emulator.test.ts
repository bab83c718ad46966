import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type RequestListener,
  type Server,
} from "node:http";
import { Markup, Telegraf, TelegramError } from "telegraf";
import { message } from "telegraf/filters";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  plainText,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../../src/dev/telegram-emulator/index.js";

let emulator: TelegramEmulator;
let bot: Telegraf;
let launched: Promise<void> | undefined;
const servers: Server[] = [];

beforeEach(async () => {
  emulator = await startTelegramEmulator({ maxPollWaitMs: 200, webhookRetryDelayMs: 10 });
  bot = new Telegraf(emulator.token, { telegram: { apiRoot: emulator.apiRoot } });
  launched = undefined;
});

afterEach(async () => {
  if (launched) {
    bot.stop("test over");
    await launched.catch(() => undefined);
  }
  await Promise.all(servers.splice(0).map((server) => new Promise((r) => server.close(r))));
  await emulator.close();
});

/** Runs the bot with long polling, as `bot.launch()` does in production. */
function launch(): void {
  launched = bot.launch();
}

async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return `http://127.0.0.1:${address.port}`;
}

async function apiError(call: Promise<unknown>): Promise<TelegramError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof TelegramError)) throw new Error(`expected a TelegramError, got ${error}`);
  return error;
}

describe("TelegramEmulator", () => {
  it("runs a /start, button press, callback answer and edit with a real Telegraf bot", async () => {
    bot.start((ctx) =>
      ctx.reply(`<b>Pay</b> 5 000 XAF to ${ctx.from.first_name}?`, {
        parse_mode: "HTML",
        ...Markup.inlineKeyboard([
          Markup.button.callback("Confirm", "confirm:1"),
          Markup.button.callback("Cancel", "cancel:1"),
        ]),
      }),
    );
    bot.action("confirm:1", async (ctx) => {
      await ctx.answerCbQuery("Sent");
      await ctx.editMessageText("Pending, id <code>p-1</code>", { parse_mode: "HTML" });
    });
    const user = emulator.user({ id: 42, firstName: "Ada", languageCode: "fr" });
    launch();

    const prompted = emulator.waitForMessage((m) => m.chatId === 42);
    await user.sendText("/start");
    const prompt = await prompted;
    expect(plainText(prompt)).toBe("Pay 5 000 XAF to Ada?");
    expect(prompt.replyMarkup?.[0]?.map((button) => button.text)).toEqual(["Confirm", "Cancel"]);

    const edited = emulator.waitForMessage(
      (m) => m.messageId === prompt.messageId && m.editCount > 0,
    );
    const { callbackQueryId } = await user.pressButton(prompt, "Confirm");
    const answer = await emulator.waitForCallbackAnswer(callbackQueryId);
    expect(answer.text).toBe("Sent");
    const pending = await edited;
    expect(emulator.plainText(pending)).toBe("Pending, id p-1");
    expect(pending.replyMarkup).toBeUndefined();
    expect(pending.history.map((version) => version.text)).toEqual([prompt.text, pending.text]);
    expect(emulator.messages(42)).toEqual([pending]);
    expect(emulator.countCalls("getUpdates")).toBeGreaterThan(0);
  });

  it("sends a reply to a bot message with that message as reply_to_message, as Telegram does", async () => {
    bot.command("ask", (ctx) => ctx.reply("Why?"));
    bot.on(message("text"), (ctx) => {
      const replied = ctx.message.reply_to_message;
      const about = replied && "text" in replied ? replied.text : "nothing";
      return ctx.reply(`${ctx.message.text} (to #${replied?.message_id ?? "-"}: ${about})`);
    });
    const user = emulator.user({ id: 42 });
    launch();
    const asked = emulator.waitForMessage((m) => m.chatId === 42);
    await user.sendText("/ask");
    const question = await asked;

    const answered = emulator.waitForMessage(
      (m) => m.chatId === 42 && m.text.startsWith("because"),
    );
    await user.sendText("because", { replyTo: question });
    expect(plainText(await answered)).toBe(`because (to #${question.messageId}: Why?)`);
    const plain = emulator.waitForMessage((m) => m.chatId === 42 && m.text.startsWith("plain"));
    await user.sendText("plain");
    expect(plainText(await plain)).toBe("plain (to #-: nothing)");
  });

  it("routes a /command@bot typed in a group to the bot and records its reply there", async () => {
    bot.command("pay", (ctx) => ctx.reply(`pay in ${ctx.chat.type}: ${ctx.payload}`));
    const group = emulator.group(-1001234567890, "Finance");
    const user = emulator.user({ id: 5 });
    launch();
    const replied = emulator.waitForMessage((m) => m.chatId === group.id);
    await user.sendText(`/pay@${emulator.bot.username} 5000`, { chat: group });
    expect((await replied).text).toBe("pay in supergroup: 5000");
  });

  it("refuses HTML Telegram cannot parse with a 400 and keeps no message", async () => {
    emulator.user({ id: 7 });
    const send = (text: string) => bot.telegram.sendMessage(7, text, { parse_mode: "HTML" });
    for (const bad of ["<b>bold</i>", "<br>", "5 < 6", "Tom & Jerry", "<b>open"]) {
      const error = await apiError(send(bad));
      expect(error.code).toBe(400);
      expect(error.description).toMatch(/^Bad Request: can't parse entities: /);
    }
    expect(emulator.messages(7)).toEqual([]);
    const sent = await send('<a href="https://x.test/?a=1&amp;b=2">5 &lt; 6</a> &#233;');
    expect(sent.text).toBe("5 < 6 é");
    expect(sent.entities).toEqual([
      { type: "text_link", offset: 0, length: 5, url: "https://x.test/?a=1&b=2" },
    ]);
  });

  it("answers edits that change nothing or target no message like Telegram", async () => {
    emulator.user({ id: 8 });
    const keyboard = Markup.inlineKeyboard([Markup.button.callback("Go", "go")]);
    const sent = await bot.telegram.sendMessage(8, "Hello", keyboard);
    const same = await apiError(
      bot.telegram.editMessageText(8, sent.message_id, undefined, "Hello", keyboard),
    );
    expect(same.code).toBe(400);
    expect(same.description).toMatch(/^Bad Request: message is not modified/);
    const missing = await apiError(bot.telegram.editMessageText(8, 999, undefined, "Hi"));
    expect(missing.description).toBe("Bad Request: message to edit not found");
    await bot.telegram.editMessageReplyMarkup(8, sent.message_id, undefined, undefined);
    expect(emulator.message(8, sent.message_id)?.replyMarkup).toBeUndefined();
  });

  it("enforces Telegram's limits on text, callback data and callback answers", async () => {
    emulator.user({ id: 9 });
    const long = await apiError(bot.telegram.sendMessage(9, "x".repeat(4097)));
    expect(long.description).toBe("Bad Request: message is too long");
    const data = Markup.inlineKeyboard([Markup.button.callback("Big", "d".repeat(65))]);
    const button = await apiError(bot.telegram.sendMessage(9, "Hi", data));
    expect(button.description).toBe("Bad Request: BUTTON_DATA_INVALID");
    const stale = await apiError(bot.telegram.answerCbQuery("12345"));
    expect(stale.description).toMatch(/^Bad Request: query is too old/);
    const unknown = await fetch(`${emulator.apiRoot}/bot${emulator.token}/sendTelepathy`, {
      method: "POST",
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      ok: false,
      error_code: 404,
      description: "Not Found: method not found",
    });
    const intruder = new Telegraf("987654321:WRONG-token", {
      telegram: { apiRoot: emulator.apiRoot },
    });
    expect((await apiError(intruder.telegram.getMe())).code).toBe(401);
  });

  it("ends a waiting getUpdates with 409 when a second consumer polls", async () => {
    await emulator.close();
    emulator = await startTelegramEmulator({ maxPollWaitMs: 5000 });
    const telegram = new Telegraf(emulator.token, { telegram: { apiRoot: emulator.apiRoot } })
      .telegram;
    const firstArrived = once(emulator, "call");
    const first = apiError(telegram.getUpdates(30, 100, 0, undefined));
    await firstArrived;
    const second = telegram.getUpdates(30, 100, 0, undefined);
    const conflict = await first;
    expect(conflict.code).toBe(409);
    expect(conflict.description).toMatch(/^Conflict: terminated by other getUpdates request/);
    await emulator.user({ id: 10 }).sendText("still here");
    const updates = await second;
    expect(
      updates.map((update) => ("message" in update ? update.message : undefined)),
    ).toMatchObject([{ text: "still here" }]);
  });

  it("acknowledges updates by offset and drops types the bot did not ask for", async () => {
    const user = emulator.user({ id: 11 });
    const firstId = await user.sendText("one");
    await user.sendText("two");
    const all = await bot.telegram.getUpdates(0, 100, 0, undefined);
    expect(all.map((update) => update.update_id)).toEqual([firstId, firstId + 1]);
    expect(await bot.telegram.getUpdates(0, 100, firstId + 2, undefined)).toEqual([]);
    await user.sendText("three");
    expect(await bot.telegram.getUpdates(0, 100, 0, ["callback_query"])).toEqual([]);
  });

  it("POSTs updates to a webhook with the secret, retries a failure, and refuses getUpdates", async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const url = await listen((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.statusCode = received.length === 1 ? 500 : 200;
        res.end();
      });
    });
    await bot.telegram.setWebhook(`${url}/hook`, { secret_token: "s3cret_token" });
    const conflict = await apiError(bot.telegram.getUpdates(0, 100, 0, undefined));
    expect(conflict.description).toMatch(/^Conflict: can't use getUpdates method while webhook/);

    await emulator.user({ id: 12 }).sendText("hello");
    await expect.poll(() => received.length).toBe(2);
    expect(received[1]?.headers["x-telegram-bot-api-secret-token"]).toBe("s3cret_token");
    expect(JSON.parse(received[1]?.body ?? "{}")).toMatchObject({ message: { text: "hello" } });
    expect(emulator.webhook).toMatchObject({
      url: `${url}/hook`,
      deliveredCount: 1,
      lastErrorMessage: "Wrong response from the webhook: 500 Internal Server Error",
    });
    const info = await bot.telegram.getWebhookInfo();
    expect(info.pending_update_count).toBe(0);
  });

  it("serves a Telegraf webhook bot, including replies made in the webhook answer", async () => {
    bot.on(message("text"), (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    bot.action("ping", (ctx) => ctx.answerCbQuery("pong"));
    const url = await listen(bot.webhookCallback("/hook", { secretToken: "right" }));
    await bot.telegram.setWebhook(`${url}/hook`, { secret_token: "right" });
    const user = emulator.user({ id: 13 });

    const echoed = emulator.waitForMessage((m) => m.text === "echo: hi");
    await user.sendText("hi");
    const echo = await echoed;
    // answerCbQuery travels in the webhook's HTTP answer, which the emulator executes.
    const { callbackQueryId } = await user.pressCallbackData(echo.messageId, "ping");
    expect((await emulator.waitForCallbackAnswer(callbackQueryId)).text).toBe("pong");
    // Recorded as a Bot API call, marked as having come in a webhook's answer.
    const answers = emulator.calls.filter((call) => call.method === "answerCallbackQuery");
    expect(answers).toEqual([
      expect.objectContaining({
        params: { callback_query_id: callbackQueryId, text: "pong" },
        viaWebhookReply: true,
      }),
    ]);
    expect(emulator.calls.find((call) => call.method === "sendMessage")?.viaWebhookReply).toBe(
      undefined,
    );
  });

  it("runs no method Telegram refuses in a webhook answer, nor one after a failed POST", async () => {
    const replies = [
      { method: "getMe" },
      { method: "setWebhook", url: "http://127.0.0.1:1/elsewhere" },
      { method: "deleteWebhook" },
      { method: "logOut" },
      { method: "close" },
    ];
    let status = 200;
    const url = await listen((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(
          JSON.stringify(replies.shift() ?? { method: "sendMessage", chat_id: 15, text: "x" }),
        );
      });
    });
    await bot.telegram.setWebhook(`${url}/hook`);
    const user = emulator.user({ id: 15 });
    for (let i = 0; i < 5; i += 1) await user.sendText(`refused ${i}`);
    await expect.poll(() => emulator.webhook.deliveredCount).toBe(5);
    // A 500 is a failed delivery: what its body asks for is not run.
    status = 500;
    await user.sendText("failed");
    await expect.poll(() => emulator.webhook.lastErrorMessage).toMatch(/500/);
    expect(emulator.calls.filter((call) => call.viaWebhookReply)).toEqual([]);
    const counts = ["getMe", "setWebhook", "deleteWebhook", "logOut", "close", "sendMessage"].map(
      (method) => emulator.countCalls(method),
    );
    // The one setWebhook is the test's own.
    expect(counts).toEqual([0, 1, 0, 0, 0, 0]);
    expect(emulator.webhook.url).toBe(`${url}/hook`);
    expect(emulator.messages(15)).toEqual([]);
  });

  /** A webhook that holds every POST until the test lets it go, by the message's text. */
  async function holdingWebhook() {
    const held = new Map<string, () => void>();
    const url = await listen((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        const update: { message?: { text?: string } } = JSON.parse(body);
        held.set(update.message?.text ?? "", () => res.end());
      });
    });
    // Two POSTs in flight together may arrive in either order: compare as sets.
    const texts = () => [...held.keys()].sort();
    const release = (text: string) => held.get(text)?.();
    return { url, texts, release };
  }

  it("POSTs two chats' updates at once but one chat's one at a time, in order", async () => {
    const hook = await holdingWebhook();
    await bot.telegram.setWebhook(`${hook.url}/hook`);
    const [ann, bob] = [emulator.user({ id: 21 }), emulator.user({ id: 22 })];
    await ann.sendText("ann 1");
    await ann.sendText("ann 2");
    await bob.sendText("bob 1");

    // Ann's first and Bob's first are in flight together; Ann's second waits for her first.
    await expect.poll(hook.texts).toEqual(["ann 1", "bob 1"]);
    hook.release("bob 1");
    await expect.poll(() => emulator.webhook.deliveredCount).toBe(1);
    expect(hook.texts()).toEqual(["ann 1", "bob 1"]);
    hook.release("ann 1");
    await expect.poll(hook.texts).toEqual(["ann 1", "ann 2", "bob 1"]);
    hook.release("ann 2");
    await expect.poll(() => emulator.webhook.pendingUpdateCount).toBe(0);
    expect(emulator.webhook.deliveredCount).toBe(3);
  });

  it("keeps at most max_connections POSTs in flight", async () => {
    const hook = await holdingWebhook();
    await bot.telegram.setWebhook(`${hook.url}/hook`, { max_connections: 2 });
    for (const id of [31, 32, 33]) await emulator.user({ id }).sendText(`from ${id}`);

    // Three chats are ready, but the third waits for a free connection.
    await expect.poll(hook.texts).toEqual(["from 31", "from 32"]);
    expect(emulator.webhook.pendingUpdateCount).toBe(3);
    hook.release("from 31");
    await expect.poll(hook.texts).toEqual(["from 31", "from 32", "from 33"]);
    hook.release("from 32");
    hook.release("from 33");
    await expect.poll(() => emulator.webhook.deliveredCount).toBe(3);
  });

  it("turns failNext into the TelegramError Telegram would cause", async () => {
    emulator.user({ id: 14 });
    emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 3",
      retry_after: 3,
    });
    const limited = await apiError(bot.telegram.sendMessage(14, "one"));
    expect([limited.code, limited.parameters?.retry_after]).toEqual([429, 3]);
    emulator.failNext("sendMessage", { error_code: 500, description: "Internal" });
    expect((await apiError(bot.telegram.sendMessage(14, "two"))).code).toBe(500);
    expect((await bot.telegram.sendMessage(14, "three")).text).toBe("three");
    emulator.user({ id: 14 }).blockBot();
    const blocked = await apiError(bot.telegram.sendMessage(14, "four"));
    expect([blocked.code, blocked.description]).toEqual([
      403,
      "Forbidden: bot was blocked by the user",
    ]);
    expect(emulator.countCalls("sendMessage")).toBe(4);
  });

  it("refuses to message a user who never started the bot until they write", async () => {
    const user = emulator.user({ id: 18, hasStartedBot: false });
    const refused = await apiError(bot.telegram.sendMessage(18, "Welcome"));
    expect([refused.code, refused.description]).toEqual([
      403,
      "Forbidden: bot can't initiate conversation with a user",
    ]);
    await user.sendText("hi");
    expect((await bot.telegram.sendMessage(18, "Welcome")).message_id).toBe(2);
  });

  it("delivers updates from many users at once, each reply in its own chat", async () => {
    bot.on(message("text"), (ctx) => ctx.reply(`ok ${ctx.from.id}`));
    launch();
    const users = Array.from({ length: 30 }, (_, i) => emulator.user({ id: 100 + i }));
    const replied = users.map((user) =>
      emulator.waitForMessage((m) => m.chatId === user.id && m.text === `ok ${user.id}`),
    );
    const updateIds = await Promise.all(users.map((user) => user.sendText("hello")));
    await Promise.all(replied);
    expect(new Set(updateIds).size).toBe(30);
    for (const user of users) expect(emulator.messages(user.id)).toHaveLength(1);
  });

  it("stores a document the bot uploads as multipart/form-data", async () => {
    emulator.user({ id: 15 });
    const bytes = Buffer.from("id,amount\np-1,5000\n");
    const sent = await bot.telegram.sendDocument(
      15,
      { source: bytes, filename: "audit.csv" },
      { caption: "Audit <b>export</b>", parse_mode: "HTML" },
    );
    expect(sent.caption).toBe("Audit export");
    const [document] = emulator.documents(15);
    expect(document).toMatchObject({ fileName: "audit.csv", mimeType: "text/csv" });
    expect(document?.bytes.equals(bytes)).toBe(true);
    expect(document?.caption).toBe("Audit <b>export</b>");
  });

  it("lets the bot download a document the user uploaded", async () => {
    bot.on(message("document"), async (ctx) => {
      const link = await ctx.telegram.getFileLink(ctx.message.document.file_id);
      const text = await (await fetch(link)).text();
      await ctx.reply(`${ctx.message.document.file_name}: ${text}`);
    });
    launch();
    const user = emulator.user({ id: 16 });
    const replied = emulator.waitForMessage((m) => m.chatId === 16);
    await user.uploadDocument("batch.csv", "text/csv", Buffer.from("237670000001,5000"), "batch");
    expect((await replied).text).toBe("batch.csv: 237670000001,5000");
  });

  it("answers 404, and keeps serving, for a file path with a malformed escape", async () => {
    const base = `${emulator.apiRoot}/file/bot${emulator.token}`;
    expect((await fetch(`${base}/documents/%zz.csv`)).status).toBe(404);
    expect((await fetch(`${base}/documents/none.csv`)).status).toBe(404);
  });

  it("keeps bot commands per language and scope", async () => {
    await bot.telegram.setMyCommands([{ command: "pay", description: "Pay someone" }]);
    await bot.telegram.setMyCommands([{ command: "pay", description: "Payer quelqu'un" }], {
      language_code: "fr",
    });
    await bot.telegram.setMyCommands([{ command: "help", description: "Help" }], {
      scope: { type: "all_group_chats" },
    });
    expect(emulator.commands()).toEqual([{ command: "pay", description: "Pay someone" }]);
    expect(emulator.commands("fr")).toEqual([{ command: "pay", description: "Payer quelqu'un" }]);
    expect(emulator.commands(undefined, { type: "all_group_chats" })).toHaveLength(1);
    expect(await bot.telegram.getMyCommands({ language_code: "fr" })).toHaveLength(1);
    const invalid = await apiError(
      bot.telegram.setMyCommands([{ command: "Pay!", description: "x" }]),
    );
    expect(invalid.description).toBe("Bad Request: BOT_COMMAND_INVALID");
  });

  it("explains a waitForMessage timeout with the recent messages and API errors", async () => {
    emulator.user({ id: 17 });
    await bot.telegram.sendMessage(17, "Hello there");
    await apiError(bot.telegram.sendMessage(17, "<oops>", { parse_mode: "HTML" }));
    await expect(emulator.waitForMessage((m) => m.text === "never", 50)).rejects.toThrow(
      /chat 17 #1: "Hello there"[\s\S]*sendMessage: Bad Request: can't parse entities/,
    );
  });

  it("answers a waiting long poll with [] when it closes", async () => {
    await emulator.close();
    emulator = await startTelegramEmulator({ maxPollWaitMs: 10_000 });
    const telegram = new Telegraf(emulator.token, { telegram: { apiRoot: emulator.apiRoot } })
      .telegram;
    const arrived = once(emulator, "call");
    const polling = telegram.getUpdates(30, 100, 0, undefined);
    await arrived;
    await emulator.close();
    expect(await polling).toEqual([]);
  });
});
