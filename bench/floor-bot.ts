/**
 * The floor of the /pay benchmarks: the same job as the product with nothing extra, written
 * as plainly as a good engineer would for a demo. Telegraf polling the same Bot API, one
 * ioredis connection, undici for the Payment API, and the same calls per flow as the app:
 *
 *   /pay NUMBER AMOUNT → GET /data/userinfo → sendMessage (the prompt, Confirm / Cancel)
 *                      → one SET of the prompt's record, with its message id
 *   Confirm            → one MULTI (SET NX claim + GET record) → POST /disburse
 *                      → answerCallbackQuery + editMessageText ("Pending")
 *   payment callback   → GET /payments/{id} → editMessageText + sendMessage (the notice)
 *
 * In webhook mode (`webhook` set) updates come by HTTP instead, as telegram-webhook.ts takes
 * them, on the same server as the payment callbacks (as the app serves both).
 *
 * No roles, limits, duplicates, audit, durability, i18n or escaping beyond what the Bot
 * API needs: what is left is what any bot doing this job must pay, so the product's cost
 * over it is the cost of its guards.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { Redis } from "ioredis";
import { Telegraf } from "telegraf";
import { Pool } from "undici";
import {
  listenOn,
  portOf,
  setBotWebhook,
  type TelegramWebhookOptions,
  telegramWebhookRoute,
} from "./telegram-webhook.js";

export interface FloorBotOptions {
  token: string;
  apiRoot: string;
  redisUrl: string;
  /** Key prefix, so a run can drop its keys. */
  prefix: string;
  paymentApiUrl: string;
  paymentApiKey: string;
  /** Take updates by webhook at this URL (its port is this bot's server); null: long polling. */
  webhook: TelegramWebhookOptions | null;
}

export interface FloorBot {
  /** Where payment callbacks go: `${httpUrl}/webhooks/payments`. */
  httpUrl: string;
  stop(): Promise<void>;
}

interface PromptRecord {
  chatId: number;
  messageId: number;
  phone: string;
  amount: number;
  name: string;
}

const PROMPT_TTL_SECONDS = 300;
const DAY_SECONDS = 86_400;
const FINAL = new Set(["success", "failed", "canceled"]);

/** `237` + nine digits from what the person typed, or null. */
function phoneOf(text: string): string | null {
  const digits = text.replace(/\D/g, "");
  if (/^237[26]\d{8}$/.test(digits)) return digits;
  if (/^[26]\d{8}$/.test(digits)) return `237${digits}`;
  return null;
}

export async function startFloorBot(options: FloorBotOptions): Promise<FloorBot> {
  const redis = new Redis(options.redisUrl, { keyPrefix: options.prefix });
  const api = new Pool(options.paymentApiUrl, { connections: 16 });
  const headers = { "x-api-key": options.paymentApiKey, "content-type": "application/json" };
  const bot = new Telegraf(options.token, {
    telegram: { apiRoot: options.apiRoot, webhookReply: false },
  });

  const apiCall = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const response = await api.request({
      method,
      path,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    const json: unknown = await response.body.json();
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode}`);
    return json as Record<string, unknown>;
  };

  // A press can arrive while its prompt's record is still being written (updates come
  // concurrently in webhook mode): Confirm waits for it, as the app does.
  const storing = new Map<string, Promise<void>>();

  const sendPrompt = async (
    chatId: number,
    id: string,
    payout: Pick<PromptRecord, "phone" | "amount" | "name">,
  ) => {
    const { phone, amount, name } = payout;
    const sent = await bot.telegram.sendMessage(
      chatId,
      `Pay ${amount} FCFA to ${name} (+${phone})?`,
      {
        reply_markup: {
          inline_keyboard: [
            [
              { text: "Confirm", callback_data: `c:${id}` },
              { text: "Cancel", callback_data: `x:${id}` },
            ],
          ],
        },
      },
    );
    const record: PromptRecord = { chatId, messageId: sent.message_id, ...payout };
    await redis.set(`prompt:${id}`, JSON.stringify(record), "EX", PROMPT_TTL_SECONDS);
  };

  bot.command("pay", async (ctx) => {
    const [, number = "", amountText = ""] = ctx.message.text.split(/\s+/);
    const phone = phoneOf(number);
    const amount = Number(amountText);
    if (phone === null || !Number.isInteger(amount) || amount <= 0) {
      await ctx.reply("Usage: /pay NUMBER AMOUNT");
      return;
    }
    const info = await apiCall("GET", `/data/userinfo/${phone}`);
    const name = `${String(info.firstName ?? "")} ${String(info.lastName ?? "")}`.trim();
    const id = randomBytes(12).toString("base64url");
    const stored = sendPrompt(ctx.chat.id, id, { phone, amount, name });
    storing.set(id, stored);
    try {
      await stored;
    } finally {
      storing.delete(id);
    }
  });

  bot.action(/^c:(.+)$/, async (ctx) => {
    const id = ctx.match[1] ?? "";
    await storing.get(id)?.catch(() => undefined);
    // The claim and the record in one round trip: only the first press gets "OK".
    const replies = await redis
      .multi()
      .set(`claim:${id}`, "1", "EX", DAY_SECONDS, "NX")
      .get(`prompt:${id}`)
      .exec();
    const claimed = replies?.[0]?.[1] === "OK";
    const raw = replies?.[1]?.[1];
    if (!claimed || typeof raw !== "string") {
      await ctx.answerCbQuery("Already handled.");
      return;
    }
    const record = JSON.parse(raw) as PromptRecord;
    const payment = await apiCall("POST", "/disburse", {
      amount: record.amount,
      phoneNumber: record.phone,
    });
    const paymentId = String(payment.id);
    await Promise.all([
      redis.set(`payment:${paymentId}`, raw, "EX", DAY_SECONDS),
      ctx.answerCbQuery("Sending…"),
      ctx.editMessageText(`Pending: ${record.amount} FCFA to ${record.name}. Payment ${paymentId}`),
    ]);
  });

  bot.action(/^x:(.+)$/, async (ctx) => {
    await redis.del(`prompt:${ctx.match[1] ?? ""}`);
    await Promise.all([ctx.answerCbQuery("Cancelled."), ctx.editMessageText("Cancelled.")]);
  });

  const settle = async (paymentId: string) => {
    // The callback's body is a hint: the payment is read from the API.
    const payment = await apiCall("GET", `/payments/${encodeURIComponent(paymentId)}`);
    const status = String(payment.status);
    if (!FINAL.has(status)) return;
    const raw = await redis.getdel(`payment:${paymentId}`);
    if (raw === null) return;
    const record = JSON.parse(raw) as PromptRecord;
    const text = `${status === "success" ? "Paid" : status}: ${record.amount} FCFA to ${record.name}`;
    await Promise.all([
      bot.telegram.editMessageText(record.chatId, record.messageId, undefined, text),
      bot.telegram.sendMessage(record.chatId, text),
    ]);
  };

  const telegramRoute = options.webhook ? telegramWebhookRoute(bot, options.webhook) : null;
  const server = createServer((request, response) => {
    if (telegramRoute?.(request, response)) return;
    if (request.method !== "POST" || request.url !== "/webhooks/payments") {
      response.writeHead(404).end();
      return;
    }
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      response.writeHead(200).end();
      let id = "";
      try {
        id = String((JSON.parse(body) as { id?: unknown }).id ?? "");
      } catch {
        return;
      }
      if (id !== "") void settle(id).catch(() => undefined);
    });
  });
  const address = await listenOn(server, options.webhook ? portOf(options.webhook.url) : 0);

  if (options.webhook) {
    // What launch() does first, then the webhook in place of polling.
    bot.botInfo = await bot.telegram.getMe();
    await setBotWebhook(bot, options.webhook);
  } else {
    await new Promise<void>((resolve, reject) => {
      bot.launch(() => resolve()).catch(reject);
    });
  }
  return {
    httpUrl: `http://127.0.0.1:${address.port}`,
    async stop() {
      if (!options.webhook) bot.stop("bench done");
      await new Promise((resolve) => server.close(resolve));
      await api.close();
      redis.disconnect();
    },
  };
}
