/**
 * The /pay loop against `telegram-test-api`, a Bot API emulator nobody here wrote, so the
 * bot stays compatible with a client that is not ours: its getMe has no `is_bot`, its
 * callback queries carry a message without `message_id` (nothing to edit), and it answers
 * the methods it lacks (setMyCommands, sendChatAction) with a 500 and a sentence.
 * Every Bot API call goes through a recording proxy, so the test sees what the bot asked.
 */
import { createServer, type Server } from "node:http";
// The package's main module replaces its exports with the class; its types say otherwise.
import { TelegramServer } from "telegram-test-api/lib/telegramServer.js";
import { request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/index.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { capturedLogger } from "../../support/logs.js";
import { freePort } from "../../support/net.js";
import { waitUntil } from "../../support/processes.js";
import { dropTestPrefix, testPrefix, testRedisUrl } from "../../support/redis.js";

const TOKEN = "123456789:TEST-third-party-emulator-aaaaaaaaaaa";
const PAYER = 4242;
const WARN = 40;

/** What the bot sent: a message's chat, text and inline keyboard. */
interface BotMessage {
  chat_id: number | string;
  text: string;
  reply_markup?: { inline_keyboard?: { text: string; callback_data?: string }[][] };
}

/** Forwards every request to `target`, recording its Bot API method and body. */
async function recordingProxy(target: string) {
  const calls: { method: string; body: string }[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const method = (incoming.url ?? "").split("/").pop() ?? "";
      calls.push({ method, body });
      const headers = { "content-type": incoming.headers["content-type"] ?? "application/json" };
      request(`${target}${incoming.url ?? ""}`, {
        method: incoming.method === "GET" ? "GET" : "POST",
        headers,
        body: incoming.method === "GET" ? undefined : body,
      })
        .then(async (answer) => {
          const text = await answer.body.text();
          outgoing.writeHead(answer.statusCode, { "content-type": "application/json" });
          outgoing.end(text);
        })
        .catch(() => {
          outgoing.writeHead(502);
          outgoing.end();
        });
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the /pay loop against telegram-test-api", () => {
  let telegram: TelegramServer;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let sandbox: SandboxHandle;
  let app: App;
  let prefix: string;
  let logs: ReturnType<typeof capturedLogger>;

  beforeEach(async () => {
    const port = await freePort();
    telegram = new TelegramServer({ port, host: "127.0.0.1" });
    await telegram.start();
    proxy = await recordingProxy(`http://127.0.0.1:${port}`);
    sandbox = await startSandbox({ settleDelayMs: 150, rateLimitPerMinute: 0 });
    prefix = testPrefix("tta");
    logs = capturedLogger("warn");
    app = await startApp({
      config: loadConfig(
        {
          TELEGRAM_BOT_TOKEN: TOKEN,
          TELEGRAM_API_ROOT: proxy.url,
          PAYMENT_API_KEY: sandbox.apiKey,
          PAYMENT_API_BASE_URL: sandbox.url,
          PAYMENT_SIGNATURE_PUBLIC_KEY: sandbox.publicKeyPem,
          REDIS_URL: testRedisUrl(),
          REDIS_KEY_PREFIX: prefix,
          STAFF: `${PAYER}:admin`,
          STATUS_POLL_INTERVAL_MS: "200",
        },
        "start",
      ),
      logger: logs.logger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
      http: false,
    });
  });

  afterEach(async () => {
    await app.stop();
    await sandbox.close();
    await proxy.close();
    await telegram.stop();
    await dropTestPrefix(prefix);
  });

  const botMessages = (): BotMessage[] =>
    telegram.storage.botMessages.map((update) => update.message as BotMessage);

  it("starts without is_bot, pays once on a press without a message, reports by a new message", async () => {
    // Started: getMe had no is_bot; a warning says so, and nothing refused.
    const noIsBot = logs.lines.find((line) => line.msg?.includes("getMe") && line.level === WARN);
    expect(noIsBot?.msg).toBe(
      "Telegram answered getMe without is_bot; going on (only is_bot: false is refused)",
    );
    // The command menu is cosmetic: its warning carries what the server said.
    const menus = logs.lines.filter((line) => line.method === "setMyCommands");
    expect(menus).toHaveLength(1);
    expect(menus[0]?.msg).toContain("API method 'setMyCommands' is not supported");
    expect(menus[0]?.err).toBeUndefined();

    const client = telegram.getClient(TOKEN, {
      userId: PAYER,
      chatId: PAYER,
      firstName: "Paul",
      userName: "paul",
      type: "private",
    });
    await client.sendCommand(client.makeCommand("/pay 670000001 5000"));
    await waitUntil(
      () => botMessages().some((message) => message.text.includes("Jean-Paul Mbarga")),
      "the prompt",
    );
    const prompt = botMessages().find((message) => message.text.includes("Jean-Paul Mbarga"));
    const confirm = prompt?.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data;
    expect(confirm).toMatch(/^c:/);
    const before = botMessages().length;

    // Its callback query's message has a chat but no message_id: nothing to edit.
    await client.sendCallback(client.makeCallbackQuery(confirm ?? ""));
    await waitUntil(
      () => botMessages().some((message) => message.text.includes("Paid")),
      "the Paid notice",
    );

    expect(sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    // The press was answered once ("Sending…"), never a second time with an error.
    const answers = proxy.calls.filter((call) => call.method === "answerCallbackQuery");
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body).toContain("Sending");
    // The outcome came as a new message in the payer's chat, then the notice.
    const after = botMessages().slice(before);
    expect(after.every((message) => String(message.chat_id) === String(PAYER))).toBe(true);
    expect(after.some((message) => /Pending|Completed/.test(message.text))).toBe(true);
    expect(logs.lines.filter((line) => line.msg === "update failed")).toEqual([]);
  });
});
