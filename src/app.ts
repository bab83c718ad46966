/**
 * The composition root: builds every part from the configuration, starts them in order,
 * and stops them in reverse. `npm start`, the demo and the end-to-end tests all run the
 * product through `startApp`, so what is tested is what runs.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { Telegraf } from "telegraf";
import { TelegramError } from "telegraf";
import { createBot, registerCommands } from "./bot/bot.js";
import type { BotContext } from "./bot/context.js";
import { TelegramMessenger } from "./bot/messenger.js";
import { DEFAULT_POLL_TIMEOUT_SECONDS, UpdatePoller } from "./bot/poller.js";
import { longPollTelegram, TELEGRAM_CALL_TIMEOUT_MS } from "./bot/telegram-transport.js";
import type { Config } from "./config.js";
import { type HttpServerHandle, startHttpServer } from "./http/server.js";
import type { Logger } from "./logger.js";
import { PaymentClient } from "./payments/client.js";
import { PaymentApiError, PaymentClientError } from "./payments/errors.js";
import { LocalRateLimiter } from "./payments/local-rate-limiter.js";
import type { RateLimiter } from "./payments/rate-limiter.js";
import { loadPublicKey } from "./payments/signature.js";
import { Notifier } from "./payouts/notifier.js";
import { PayoutService } from "./payouts/service.js";
import { applyBootstrapStaff } from "./payouts/staff-bootstrap.js";
import { PayoutTracker } from "./payouts/tracker.js";
import { PaymentWebhook } from "./payouts/webhook.js";
import { RedisDurability } from "./store/durability.js";
import { keys } from "./store/keys.js";
import { createRedisConnection, createRedisStores, waitForReady } from "./store/redis.js";
import { limiterWindowMs, RedisRateLimiter } from "./store/redis-rate-limiter.js";
import { describeTarget } from "./store/redis-target.js";
import type { Stores } from "./store/types.js";

/** A start-up failure with a message for a person (no stack trace needed). */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StartupError";
  }
}

export interface AppOptions {
  config: Config;
  logger: Logger;
  /** Stores to use instead of connecting to `config.redis.target` (the demo's in-memory ones). */
  stores?: Stores;
  /** Long-poll wait (tests and the demo use short ones). Default 25 s. */
  pollTimeoutSeconds?: number;
  /** Tick of the tracker and notifier loops (tests use short ones). */
  loopTickMs?: number;
  /** Skip the HTTP server (in-process tests that need none). Default true. */
  http?: boolean;
  now?: () => number;
}

export interface App {
  readonly config: Config;
  readonly stores: Stores;
  readonly bot: Telegraf<BotContext>;
  readonly service: PayoutService;
  readonly tracker: PayoutTracker;
  readonly notifier: Notifier;
  readonly webhook: PaymentWebhook;
  readonly poller: UpdatePoller | undefined;
  readonly http: HttpServerHandle | undefined;
  readonly mode: "polling" | "webhook";
  readonly botUsername: string;
  stop(): Promise<void>;
}

async function connectStores(
  config: Config,
  logger: Logger,
): Promise<{ stores: Stores; redis: Redis }> {
  const { target } = config.redis;
  const redis = createRedisConnection(target, { logger });
  try {
    await waitForReady(redis, 10_000);
  } catch (error) {
    redis.disconnect();
    const fix = target.kind === "url" ? "fix REDIS_URL" : "check REDIS_SENTINELS";
    throw new StartupError(
      `Redis at ${describeTarget(target)} is not reachable; start Redis or ${fix}.`,
      {
        cause: error,
      },
    );
  }
  const durability = await startDurability(config, redis, logger);
  const stores = createRedisStores(redis, {
    prefix: config.redis.keyPrefix,
    retentionMs: config.retentionMs,
    logger,
    durability,
  });
  return { stores, redis };
}

/**
 * The durable-write plan on a connection of its own (REDIS_DURABILITY=auto), read from the
 * server now; a server that cannot make writes durable is named in a warning.
 */
async function startDurability(config: Config, redis: Redis, logger: Logger) {
  if (config.redis.durability === "off") return undefined;
  // The same options (target, fail-fast, Sentinel), on a connection of its own.
  const connection = redis.duplicate();
  connection.on("error", () => {}); // the main connection logs the outage
  try {
    await waitForReady(connection, 10_000);
    const plan = new RedisDurability(connection, {
      timeoutMs: config.redis.durabilityTimeoutMs,
      logger,
    });
    await plan.start();
    return { plan, connection };
  } catch (error) {
    connection.disconnect();
    redis.disconnect();
    throw new StartupError("Redis did not answer the durable-writes set-up (INFO).", {
      cause: error,
    });
  }
}

function rateLimiter(
  config: Config,
  redis: Redis | undefined,
  name = "payment-api",
  limit = config.payment.rateLimitPerMinute,
): RateLimiter {
  if (!redis) return new LocalRateLimiter({ limit, windowMs: limiterWindowMs() });
  // Shared by every replica on this Redis: the API counts requests per key, not per process.
  return new RedisRateLimiter({
    redis,
    key: keys(config.redis.keyPrefix).rateLimit(name),
    limit,
    windowMs: limiterWindowMs(),
  });
}

/** Checks the API key and base URL once, so a wrong one stops the start with a clear message. */
async function checkPaymentApi(client: PaymentClient, config: Config): Promise<void> {
  try {
    await client.getAvailability();
  } catch (error) {
    if (error instanceof PaymentApiError && error.statusCode === 401) {
      throw new StartupError(
        "The Payment API refused PAYMENT_API_KEY (401). Check the key in the merchant portal.",
      );
    }
    if (error instanceof PaymentClientError) {
      throw new StartupError(
        `The Payment API at ${config.payment.baseUrl} did not answer properly: ${error.message}. Check PAYMENT_API_BASE_URL.`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function botIdentity(bot: Telegraf<BotContext>): Promise<string> {
  try {
    bot.botInfo = await bot.telegram.getMe();
    return bot.botInfo.username;
  } catch (error) {
    if (error instanceof TelegramError && error.code === 401) {
      throw new StartupError(
        "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized). Copy the token from @BotFather again.",
      );
    }
    throw new StartupError(
      `Telegram did not answer getMe: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** Starts everything; on a failure part-way, stops what had started and throws. */
export async function startApp(options: AppOptions): Promise<App> {
  const { config, logger } = options;
  const { token } = config.telegram;
  const { apiKey, baseUrl } = config.payment;
  if (!token || !apiKey || !baseUrl) {
    throw new StartupError(
      "TELEGRAM_BOT_TOKEN, PAYMENT_API_KEY and PAYMENT_API_BASE_URL are required.",
    );
  }
  const cleanups: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse())
      await cleanup().catch((error: unknown) => logger.warn({ err: error }, "stop step failed"));
  };
  try {
    const { stores, redis } = options.stores
      ? { stores: options.stores, redis: undefined }
      : await connectStores(config, logger);
    cleanups.push(() => stores.close());
    const bootstrap = await applyBootstrapStaff(stores.staff, config.staff, logger);
    logger.info(bootstrap, "staff from STAFF applied; /staff changes kept");

    const client = new PaymentClient({
      baseUrl,
      apiKey,
      limiter: rateLimiter(config, redis),
      requestTimeoutMs: config.payment.timeoutMs,
      // A payer waits on the answer: past this, say so rather than hold the Confirm for a minute.
      maxRateLimitWaitMs: 20_000,
      requestSigningKeyPem: config.payment.requestSigningKey,
      responseVerifyKeyPem: config.payment.signaturePublicKey,
      logger,
    });
    cleanups.push(() => client.close());
    await checkPaymentApi(client, config);

    const now = options.now ?? Date.now;
    const service = new PayoutService({
      gateway: client,
      stores,
      logger,
      confirmationTtlSeconds: config.confirmationTtlSeconds,
      statusPollIntervalMs: config.statusPollIntervalMs,
      now,
      // Called only once the bot runs, by which time the messenger below exists.
      onAttention: (payout, reason) => messenger.notifyAttention(payout, reason),
    });
    const bot = createBot({
      token,
      apiRoot: config.telegram.apiRoot,
      service,
      stores,
      logger,
      now,
    });
    const botUsername = await botIdentity(bot);
    await registerCommands(bot);

    const messenger = new TelegramMessenger(bot.telegram, stores, logger);
    // Only values that are set: an explicit `undefined` would override the loops' defaults
    // (`{ ...defaults, ...options }`) and make them spin with no pause at all.
    const tick = options.loopTickMs === undefined ? {} : { tickMs: options.loopTickMs };
    const notifier = new Notifier({
      stores,
      messenger,
      logger,
      now,
      callTimeoutMs: TELEGRAM_CALL_TIMEOUT_MS,
      ...tick,
    });
    notifier.start();
    cleanups.push(() => notifier.stop());
    const tracker = new PayoutTracker({
      service,
      stores,
      logger,
      pollIntervalMs: config.statusPollIntervalMs,
      stuckAfterMs: config.stuckAfterMs,
      // PAYOUT_STRANDED_AFTER_SECONDS, and never under 8 request timeouts: a live submission
      // (timeouts, 429 waits) must not be taken for a stranded one.
      submittingLimitMs: Math.max(config.strandedAfterMs, config.payment.timeoutMs * 8),
      stopAfterMs: config.retentionMs,
      ...tick,
      now,
      onAttention: (payout, reason) => messenger.notifyAttention(payout, reason),
    });
    await tracker.start();
    cleanups.push(() => tracker.stop());
    const webhook = new PaymentWebhook({
      service,
      stores,
      logger,
      publicKey: config.payment.signaturePublicKey
        ? loadPublicKey(config.payment.signaturePublicKey)
        : undefined,
      onSettled: () => notifier.wake(),
      rereadLimiter: rateLimiter(
        config,
        redis,
        "callback-rereads",
        config.payment.webhookRereadsPerMinute,
      ),
    });
    if (config.payment.webhookUnsigned) {
      logger.warn(
        "PAYMENT_WEBHOOK_UNSIGNED=allow: payment callbacks and answers are NOT verified in production; set PAYMENT_SIGNATURE_PUBLIC_KEY",
      );
    }
    cleanups.push(() => webhook.idle());

    const webhookUrl = config.telegram.webhookUrl;
    const webhookSecret = config.telegram.webhookSecret;
    const mode = webhookUrl && webhookSecret ? "webhook" : "polling";
    let running = true;
    let http: HttpServerHandle | undefined;
    if (options.http !== false) {
      http = await startHttpServer({
        host: config.http.host,
        port: config.http.port,
        logger,
        health: async () => running && (await stores.ping()),
        paymentWebhook: {
          path: config.payment.webhookPath,
          receive: (request) => webhook.receive(request),
        },
        telegramWebhook:
          webhookUrl && webhookSecret
            ? {
                path: new URL(webhookUrl).pathname,
                secret: webhookSecret,
                handleUpdate: (update) =>
                  bot.handleUpdate(update as Parameters<typeof bot.handleUpdate>[0]),
              }
            : undefined,
      });
      const server = http;
      cleanups.push(() => server.close());
    }

    let poller: UpdatePoller | undefined;
    if (webhookUrl && webhookSecret) {
      await bot.telegram.setWebhook(webhookUrl, {
        secret_token: webhookSecret,
        allowed_updates: ["message", "callback_query"],
      });
    } else {
      await bot.telegram.deleteWebhook();
      const pollTimeoutSeconds = options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS;
      const started = new UpdatePoller({
        // Two processes cannot listen on one host and port: a stable name for this instance.
        ...(http && config.http.port !== 0 ? { owner: `${hostname()}:${config.http.port}` } : {}),
        telegram: longPollTelegram(token, config.telegram.apiRoot, pollTimeoutSeconds),
        handleUpdate: (update) => bot.handleUpdate(update),
        leases: stores.leases,
        logger,
        pollTimeoutSeconds,
      });
      started.start();
      poller = started;
      cleanups.push(() => started.stop());
    }
    // Stop taking updates first (the poller was pushed last), then the loops, then storage.
    cleanups.push(async () => {
      running = false;
    });

    return {
      config,
      stores,
      bot,
      service,
      tracker,
      notifier,
      webhook,
      poller,
      http,
      mode,
      botUsername,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
