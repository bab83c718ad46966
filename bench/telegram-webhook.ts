/**
 * Webhook mode for the bench's echo and floor bots, done as the app's HTTP server does it
 * (src/http/server.ts), so the three bots take their updates alike: check the secret
 * token, read the JSON body, answer 200 at once, then hand the update to the bot (nothing
 * travels in the webhook's answer). The bot registers the URL with setWebhook, as the
 * app does, with the same allowed updates and Telegram's default max_connections.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Telegraf } from "telegraf";

export interface TelegramWebhookOptions {
  /** The URL given to setWebhook; its path is where updates come. */
  url: string;
  secret: string;
}

/** TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET, as the app reads them; null: polling. */
export function webhookFromEnv(env: NodeJS.ProcessEnv): TelegramWebhookOptions | null {
  const url = env.TELEGRAM_WEBHOOK_URL ?? "";
  const secret = env.TELEGRAM_WEBHOOK_SECRET ?? "";
  return url !== "" && secret !== "" ? { url, secret } : null;
}

/**
 * A request handler for Telegram's POSTs to `options.url`'s path; returns false for any
 * other request (the caller serves it).
 */
export function telegramWebhookRoute(
  bot: Telegraf,
  options: TelegramWebhookOptions,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const path = new URL(options.url).pathname;
  return (request, response) => {
    if (request.url !== path) return false;
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return true;
    }
    if (request.headers["x-telegram-bot-api-secret-token"] !== options.secret) {
      response.writeHead(401).end();
      return true;
    }
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      let update: Parameters<Telegraf["handleUpdate"]>[0];
      try {
        update = JSON.parse(body);
      } catch {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      void bot.handleUpdate(update).catch(() => undefined);
    });
    return true;
  };
}

/** Listens on 127.0.0.1 at `port` (0: any free port). */
export function listenOn(server: Server, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      if (typeof address !== "object" || address === null) reject(new Error("no address"));
      else resolve(address);
    });
  });
}

/** The port `url` names. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Registers the webhook as the app does (src/app.ts): secret, message and callback updates. */
export async function setBotWebhook(bot: Telegraf, options: TelegramWebhookOptions): Promise<void> {
  await bot.telegram.setWebhook(options.url, {
    secret_token: options.secret,
    allowed_updates: ["message", "callback_query"],
  });
}

/** A server that only takes Telegram's POSTs (the echo bot has nothing else to serve). */
export async function serveTelegramWebhook(
  bot: Telegraf,
  options: TelegramWebhookOptions,
): Promise<Server> {
  const route = telegramWebhookRoute(bot, options);
  const server = createServer((request, response) => {
    if (!route(request, response)) response.writeHead(404).end();
  });
  await listenOn(server, portOf(options.url));
  await setBotWebhook(bot, options);
  return server;
}
