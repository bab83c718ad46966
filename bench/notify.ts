/**
 * Benchmark 4: time to notify. (a) Webhooks on: the real app (own process, HTTP server on
 * port 0, signature checks on) holds pending payouts made through the bot; the sandbox
 * settles them one at a time (forceStatus fires the signed callback to the app), and the
 * time runs from that call to the payer's notification arriving at the emulator. Baseline,
 * alternating sample by sample: a bare relay (node:http + undici, no checks, no Redis) that
 * answers the callback, re-reads the payment and sends one message — the same I/O with
 * none of the bot's logic. (b) Webhooks off: see notify-polling.ts.
 */
import { createServer, type IncomingMessage } from "node:http";
import { request } from "undici";
import { z } from "zod";
import { plainText, type TelegramEmulator } from "../src/dev/telegram-emulator/index.js";
import { PaymentClient } from "../src/payments/client.js";
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { appEnv, type BotUnderTest, startBot } from "./bots.js";
import { payFlow, STEP_TIMEOUT_MS } from "./flows.js";
import { benchPolling } from "./notify-polling.js";
import { type BenchContext, withPrefix } from "./setup.js";
import { percentile, type Row, row } from "./stats.js";

const BENCH = "4a notify, webhook";
const PAYERS = 10;
const TARGET_P99_MS = 1000;
const RELAY_TEXT = "relay: payment settled";

const CallbackBodySchema = z.looseObject({ id: z.string() });

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The baseline receiver: answer, GET the payment, send one Telegram message. */
async function startRelay(
  sandbox: SandboxHandle,
  emulator: TelegramEmulator,
  chatId: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const relay = async (req: IncomingMessage, respond: () => void) => {
    const body = CallbackBodySchema.parse(JSON.parse(await readText(req)));
    respond();
    const payment = await request(`${sandbox.url}/payments/${encodeURIComponent(body.id)}`, {
      headers: { "x-api-key": sandbox.apiKey },
    });
    await payment.body.json();
    const sent = await request(`${emulator.apiRoot}/bot${emulator.token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: chatId, text: RELAY_TEXT }),
    });
    await sent.body.dump();
  };
  const server = createServer((req, res) => {
    relay(req, () => res.writeHead(200, { "content-type": "application/json" }).end("{}")).catch(
      () => res.headersSent || res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address !== "object") throw new Error("the relay has no port");
  return {
    url: `http://127.0.0.1:${address.port}/callback`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Forces one payment final with the callback going to `url`; ms until `arrived` matches. */
async function timeOne(
  sandbox: SandboxHandle,
  bot: BotUnderTest,
  url: string,
  paymentId: string,
  arrived: (text: string) => boolean,
): Promise<number> {
  sandbox.setCallbackUrl(url);
  const notice = bot.watcher.next(
    undefined,
    (message, kind) => kind === "message" && arrived(plainText(message)),
    STEP_TIMEOUT_MS,
    "settlement notice",
  );
  const forcedAtMs = performance.now();
  sandbox.forceStatus(paymentId, "success");
  return (await notice).atMs - forcedAtMs;
}

async function makePendingPayouts(bot: BotUnderTest, count: number): Promise<void> {
  let made = 0;
  await Promise.all(
    bot.users.map(async (user) => {
      while (made < count) {
        made += 1;
        await payFlow(user, bot.watcher, "/pay 237670000001 5000");
      }
    }),
  );
}

/** Payments the sandbox holds for the relay (the app's come from the bot flows). */
async function relayPayments(sandbox: SandboxHandle, count: number): Promise<string[]> {
  const setup = new PaymentClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
  const ids: string[] = [];
  try {
    for (let n = 0; n < count; n++) {
      ids.push((await setup.disburse({ amount: 1000, phoneNumber: "237670000001" })).id);
    }
  } finally {
    await setup.close();
  }
  return ids;
}

/** Settles the payments one at a time, alternating app and relay; ms per sample. */
async function measure(
  sandbox: SandboxHandle,
  bot: BotUnderTest,
  targets: { appUrl: string; relayUrl: string },
  payments: { app: readonly string[]; relay: readonly string[] },
): Promise<{ appMs: number[]; relayMs: number[] }> {
  const appMs: number[] = [];
  const relayMs: number[] = [];
  for (let n = 0; n < payments.app.length; n++) {
    const appPayment = payments.app[n];
    const relayPayment = payments.relay[n];
    if (!appPayment || !relayPayment) throw new Error("fewer pending payments than payouts");
    const paid = (text: string) => text.includes("Paid");
    appMs.push(await timeOne(sandbox, bot, targets.appUrl, appPayment, paid));
    const relayed = (text: string) => text === RELAY_TEXT;
    relayMs.push(await timeOne(sandbox, bot, targets.relayUrl, relayPayment, relayed));
  }
  return { appMs, relayMs };
}

function webhookRow(p: 50 | 99, appMs: number[], relayMs: number[]): Row {
  const value = percentile(appMs, p);
  return row({
    bench: BENCH,
    figure: `callback → payer notified p${p} (n=${appMs.length})`,
    value,
    unit: "ms",
    baseline: percentile(relayMs, p),
    target: p === 99 ? `< ${TARGET_P99_MS} ms` : "",
    met: p === 99 ? value < TARGET_P99_MS : null,
    note:
      p === 99
        ? "From sandbox.forceStatus (which signs and POSTs the callback) to the new " +
          "notification message at the emulator: includes the callback's signing and " +
          "transit, the app's signature check, GET /payments/{id} (signed, verified), the " +
          "Redis settlement, the prompt's edit and the sendMessage. Baseline: a bare relay " +
          "in the harness process doing the same three HTTP exchanges without checks."
        : undefined,
  });
}

async function webhookRows(context: BenchContext, sandbox: SandboxHandle): Promise<Row[]> {
  const samples = context.quick ? 20 : 100;
  return withPrefix(context, "notify", async (_redis, prefix) => {
    const userIds = Array.from({ length: PAYERS }, (_, index) => 4101 + index);
    const env = {
      ...appEnv({
        ...{ api: sandbox, redisUrl: context.redisUrl, prefix, payerIds: userIds },
        signaturePublicKeyPem: sandbox.publicKeyPem,
        // Polling must not find the statuses first: this measures the webhook path.
        statusPollIntervalMs: 3_600_000,
      }),
      BENCH_RATE_LIMIT_PER_MINUTE: "100000000",
      // 100 callbacks in well under a minute: over the default cap (half the rate limit)
      // they would be left to polling, which is off here. This measures the webhook path.
      PAYMENT_WEBHOOK_REREADS_PER_MINUTE: "10000",
    };
    const bot = await startBot({ mode: "app", userIds, env });
    const relay = await startRelay(sandbox, bot.emulator, userIds[0] ?? 0);
    try {
      if (!bot.httpUrl) throw new Error("the app started without its HTTP server");
      await makePendingPayouts(bot, samples);
      const app = sandbox.snapshot().payments.map((payment) => payment.id);
      const payments = { app, relay: await relayPayments(sandbox, samples) };
      context.log(`  ${samples} payouts settled by webhook, alternating app / relay`);
      const targets = { appUrl: `${bot.httpUrl}/webhooks/payments`, relayUrl: relay.url };
      const { appMs, relayMs } = await measure(sandbox, bot, targets, payments);
      return [webhookRow(50, appMs, relayMs), webhookRow(99, appMs, relayMs)];
    } finally {
      await relay.close();
      await bot.close();
    }
  });
}

/** Runs benchmark 4 (webhook, then polling) and returns its rows. */
export async function benchNotify(context: BenchContext): Promise<Row[]> {
  const sandbox = await startSandbox({ rateLimitPerMinute: 0, settleDelayMs: 86_400_000 });
  let rows: Row[];
  try {
    rows = await webhookRows(context, sandbox);
  } finally {
    await sandbox.close();
  }
  return [...rows, ...(await benchPolling(context))];
}
