/**
 * Starting against servers that answer oddly: a cosmetic call that fails (the command menu,
 * "typing…") costs a warning, not the bot; a call the bot cannot do without stops the start
 * with a message naming the call and what came back.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type App, StartupError, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/index.js";
import type { TelegramEmulator } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import type { SandboxHandle } from "../../../src/sandbox/index.js";
import { isPromptIn, sendAndWait } from "../../support/flows.js";
import { harnessEnv, PAYER_ID, startServices } from "../../support/harness.js";
import { capturedLogger } from "../../support/logs.js";
import { dropTestPrefix, testPrefix } from "../../support/redis.js";

const WARN = 40;

let services: { sandbox: SandboxHandle; emulator: TelegramEmulator } | undefined;
let app: App | undefined;
let oddServer: Server | undefined;
const prefix = testPrefix("startup");

afterEach(async () => {
  await app?.stop();
  await services?.emulator.close();
  await services?.sandbox.close();
  await new Promise((resolve) => (oddServer ? oddServer.close(resolve) : resolve(undefined)));
  await dropTestPrefix(prefix);
  app = undefined;
  services = undefined;
  oddServer = undefined;
});

async function start(
  extraEnv: Record<string, string> = {},
  logger = silentLogger,
): Promise<{ app: App; emulator: TelegramEmulator; sandbox: SandboxHandle }> {
  services ??= await startServices();
  const { sandbox, emulator } = services;
  const config = loadConfig(harnessEnv(sandbox, emulator, prefix, extraEnv), "start");
  app = await startApp({ config, logger, pollTimeoutSeconds: 1, loopTickMs: 50 });
  return { app, emulator, sandbox };
}

/** The StartupError message of a start that must fail. */
async function startFailure(extraEnv: Record<string, string> = {}): Promise<string> {
  const failed = await start(extraEnv).then(
    () => new Error("the start did not fail"),
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(StartupError);
  return failed instanceof Error ? failed.message : String(failed);
}

/** A server at TELEGRAM_API_ROOT that answers every call with this status and body. */
async function oddTelegram(status: number, contentType: string, body: string): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": contentType });
    response.end(body);
  });
  oddServer = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("cosmetic start-up calls", () => {
  it("starts without a command menu when setMyCommands fails, warning once, without a stack, which call and what it answered", async () => {
    services = await startServices();
    services.emulator.failNext(
      "setMyCommands",
      { error_code: 500, description: "Internal Server Error" },
      2,
    );
    const { logger, lines } = capturedLogger("info");
    const { emulator } = await start({}, logger);

    const warnings = lines.filter((line) => line.level === WARN && line.method === "setMyCommands");
    expect(warnings.map((line) => line.msg)).toEqual([
      "setMyCommands failed; going on without it: Telegram answered setMyCommands with 500 Internal Server Error",
    ]);
    expect(warnings[0]?.err).toBeUndefined();
    expect(warnings[0]?.answer).toBe(
      "Telegram answered setMyCommands with 500 Internal Server Error",
    );
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const help = await sendAndWait(emulator, payer, "/help");
    expect(emulator.plainText(help)).toContain("/pay");
  });

  it("shows the /pay prompt when sendChatAction fails, with a warning", async () => {
    services = await startServices();
    const { logger, lines } = capturedLogger("info");
    const { emulator } = await start({}, logger);
    emulator.failNext("sendChatAction", { error_code: 400, description: "Bad Request: no" });
    // "typing…" is shown only while a look-up is slow.
    services.sandbox.injectFault({
      method: "GET",
      path: "/data/userinfo/237670000001",
      delayMs: 1000,
    });

    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await sendAndWait(emulator, payer, "/pay 670000001 5000", isPromptIn(PAYER_ID));
    expect(emulator.plainText(prompt)).toContain("Jean-Paul Mbarga");
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: WARN,
        method: "sendChatAction",
        answer: "Telegram answered sendChatAction with 400 Bad Request: no",
      }),
    );
  });
});

describe("start-up errors", () => {
  it("names getMe and Telegram's answer when it fails", async () => {
    services = await startServices();
    services.emulator.failNext("getMe", { error_code: 502, description: "Bad Gateway" });
    expect(await startFailure()).toBe(
      "Telegram answered getMe with 502 Bad Gateway. Check TELEGRAM_API_ROOT.",
    );
  });

  it("says getMe's answer was not a Bot API answer when the server sends {}", async () => {
    const apiRoot = await oddTelegram(200, "application/json", "{}");
    expect(await startFailure({ TELEGRAM_API_ROOT: apiRoot })).toBe(
      "Telegram answered getMe with something that is not a Bot API answer: {}. Check TELEGRAM_API_ROOT.",
    );
  });

  it("says getMe's answer was not JSON, quoting it without the token", async () => {
    const apiRoot = await oddTelegram(404, "text/html", "<html>Not Found</html>");
    const message = await startFailure({ TELEGRAM_API_ROOT: apiRoot });
    expect(message).toMatch(
      /^Telegram answered getMe with a body that is not JSON \(.*<html>.*\)\. Check TELEGRAM_API_ROOT\.$/,
    );
    expect(message).not.toContain(services?.emulator.token.split(":")[1]);
  });

  it("refuses a getMe that says is_bot: false, and names it", async () => {
    const me = '{"ok":true,"result":{"id":7,"is_bot":false,"username":"someone"}}';
    const apiRoot = await oddTelegram(200, "application/json", me);
    expect(await startFailure({ TELEGRAM_API_ROOT: apiRoot })).toBe(
      'Telegram answered getMe with something that is not a bot: {"id":7,"is_bot":false,"username":"someone"}. Check TELEGRAM_API_ROOT.',
    );
  });

  it("says getMe's answer was not a bot when it has no result", async () => {
    const apiRoot = await oddTelegram(200, "application/json", '{"ok":true}');
    expect(await startFailure({ TELEGRAM_API_ROOT: apiRoot })).toBe(
      "Telegram answered getMe with something that is not a bot: nothing. Check TELEGRAM_API_ROOT.",
    );
  });

  it("names deleteWebhook and Telegram's answer when it fails", async () => {
    services = await startServices();
    services.emulator.failNext("deleteWebhook", {
      error_code: 500,
      description: "Internal Server Error",
    });
    expect(await startFailure()).toBe(
      "Telegram answered deleteWebhook with 500 Internal Server Error.",
    );
  });

  it("names GET /availability and what the Payment API answered", async () => {
    services = await startServices();
    services.sandbox.injectFault({
      method: "GET",
      path: "/availability",
      status: 404,
      body: { message: "Not Found", details: [] },
    });
    expect(await startFailure()).toBe(
      `The Payment API at ${services.sandbox.url} answered 404: Not Found on GET /availability. Check PAYMENT_API_BASE_URL.`,
    );
  });
});
