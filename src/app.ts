/**
 * The composition root: builds every part from the configuration, starts them in order,
 * and stops them in reverse. `npm start`, the demo and the end-to-end tests all run the
 * product through `startApp`, so what is tested is what runs.
 */
import { hostname } from "node:os";
import type { Telegraf } from "telegraf";
import { createEvents } from "./app-events.js";
import type { MerchantRuntimeOptions } from "./app-merchant-runtime.js";
import { type ReportLoops, reportDelivery, startReportLoops } from "./app-reports.js";
import { stepUpSteps } from "./app-step-up.js";
import { connectStores, rateLimiter } from "./app-storage.js";
import { createWebApp, offerMiniApp } from "./app-webapp.js";
import { createBot, registerCommands } from "./bot/bot.js";
import type { BotContext } from "./bot/context.js";
import { TelegramMessenger } from "./bot/messenger/messenger.js";
import { TelegramPacer } from "./bot/telegram/pacing.js";
import { DEFAULT_POLL_TIMEOUT_SECONDS, UpdatePoller } from "./bot/telegram/poller.js";
import { PromptWatch } from "./bot/telegram/prompt-watch.js";
import {
  boundedTelegram,
  longPollTelegram,
  TELEGRAM_CALL_TIMEOUT_MS,
} from "./bot/telegram/transport.js";
import type { Config } from "./config/index.js";
import { type MetricsServerHandle, startMetricsServer } from "./http/metrics-server.js";
import { type HttpServerHandle, startHttpServer } from "./http/server.js";
import type { WebAppHandler } from "./http/webapp/handler.js";
import { stepUpRoutes } from "./http/webapp/step-up-routes.js";
import type { Logger } from "./logger.js";
import { indexedStaff } from "./merchant-directory.js";
import { CountedPayoutStore } from "./metrics/counted-payouts.js";
import { gaugeReader } from "./metrics/gauges.js";
import { type Metrics, NO_METRICS } from "./metrics/metrics.js";
import { PrometheusMetrics } from "./metrics/prometheus.js";
import { timeRedisCommands } from "./metrics/redis-timing.js";
import type { Payout } from "./model/payout.js";
import { PaymentClient } from "./payments/client.js";
import { loadPublicKey } from "./payments/signature.js";
import { ApprovalExpiry } from "./payouts/loops/approval-expiry.js";
import type { EventRetryPolicy } from "./payouts/loops/events.js";
import { Notifier } from "./payouts/loops/notifier.js";
import { PayoutTracker } from "./payouts/loops/tracker.js";
import { loopsFor } from "./payouts/loops/wakes.js";
import { createPayouts, type Payouts } from "./payouts/payouts.js";
import { applyBootstrapStaff } from "./payouts/staff-bootstrap.js";
import { PaymentWebhook } from "./payouts/webhook.js";
import {
  botIdentity,
  checkPaymentApi,
  requiredTelegramCall,
  StartupError,
} from "./startup-checks.js";
import type { Stores } from "./store/types.js";

export { StartupError };

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
  /** Signed events' retry pauses (tests use short ones; default 5 s → 1 h for 3 days). */
  eventRetry?: EventRetryPolicy;
  /** The Mini App's built page (tests build their own); default dist/web/. */
  webAppDir?: string;
  /**
   * One merchant of several (MERCHANTS_FILE, app-merchants.ts): no Telegram transport and no
   * HTTP server of its own; the front feeds `bot.handleUpdate`, serves `webhook` and `webApp`.
   */
  merchant?: MerchantRuntimeOptions;
}

export interface App {
  readonly config: Config;
  readonly stores: Stores;
  readonly bot: Telegraf<BotContext>;
  readonly payouts: Payouts;
  readonly tracker: PayoutTracker;
  readonly notifier: Notifier;
  /** The digest schedule and the availability watcher. */
  readonly reports: ReportLoops;
  readonly webhook: PaymentWebhook;
  readonly poller: UpdatePoller | undefined;
  readonly http: HttpServerHandle | undefined;
  /** `/metrics` on a server of its own (METRICS_PORT); undefined otherwise. */
  readonly metricsServer: MetricsServerHandle | undefined;
  /** The Mini App's API routes as served (none when it is off). */
  readonly webAppRoutes: WebAppHandler["routes"];
  /** The Mini App's handler, for a front to serve (merchant runtimes only). */
  readonly webApp: WebAppHandler | undefined;
  readonly mode: "polling" | "webhook";
  readonly botUsername: string;
  /** Wakes the loops that take from `queue` (undefined: every loop): payouts/loops/wakes.ts. */
  wakeLoops(queue?: string): void;
  stop(): Promise<void>;
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
    // Metrics off: every seam holds NO_METRICS, and nothing is recorded or served.
    // One merchant of several records into the front's metrics for it (metrics/deployment.ts).
    const prometheus =
      options.merchant?.metrics ?? (config.metrics.serve ? new PrometheusMetrics() : undefined);
    const metrics: Metrics = prometheus ?? NO_METRICS;
    const connected = options.stores
      ? {
          stores: options.stores,
          redis: undefined,
          borrowed: false,
          backfill: () => {},
          durability: undefined,
        }
      : await connectStores(config, logger, options.merchant?.redis);
    const { redis, backfill } = connected;
    cleanups.push(() => connected.stores.close());
    // A lent connection is timed (if at all) by its owner, once, not once per merchant.
    if (redis && !connected.borrowed) timeRedisCommands(redis, metrics);
    // Every payout move goes through the payout store's transition: counted there.
    // A merchant's tracker rests while nothing is due: a payout submitted here wakes it.
    let wakeTracker = () => {};
    const moved = options.merchant
      ? (p: Payout) => p.state === "pending" && wakeTracker()
      : undefined;
    const stores: Stores = {
      ...connected.stores,
      ...(prometheus || moved
        ? { payouts: new CountedPayoutStore(connected.stores.payouts, metrics, moved) }
        : {}),
      ...indexedStaff(connected.stores.staff, options.merchant?.staffAdded),
    };

    const limiter = rateLimiter(config, redis);
    const client = new PaymentClient({
      baseUrl,
      apiKey,
      limiter,
      metrics,
      requestTimeoutMs: config.payment.timeoutMs,
      // A payer waits on the answer: past this, say so rather than hold the Confirm for a minute.
      maxRateLimitWaitMs: 20_000,
      // Callback re-reads, polls and availability checks leave people the batch's reserve.
      interactiveReserve: config.batch.leave,
      requestSigningKeyPem: config.payment.requestSigningKey,
      responseVerifyKeyPem: config.payment.signaturePublicKey,
      logger,
    });
    cleanups.push(() => client.close());
    await checkPaymentApi(client, baseUrl);

    const now = options.now ?? Date.now;
    const payouts = createPayouts({
      gateway: client,
      stores,
      logger,
      confirmationTtlSeconds: config.confirmationTtlSeconds,
      statusPollIntervalMs: config.statusPollIntervalMs,
      rules: config.rules,
      batch: config.batch,
      schedules: config.schedules,
      now,
      // Called only once the bot runs, by which time the notifier below exists.
      onNoticeQueued: () => notifier.wake(),
      // Likewise the batch worker: a scheduled batch's run starts at once.
      onBatchWork: () => batchWorker.wake(),
    });
    const events = createEvents({
      ...options,
      redis,
      stores,
      now,
      wake: () => notifier.wake(),
      metrics,
    });
    const usage = limiter.usage?.bind(limiter);
    prometheus?.readGaugesWith(
      gaugeReader({
        stores,
        ...(usage ? { rateLimit: usage } : {}),
        ...(events ? { events: () => events.backlog() } : {}),
        ...(connected.durability ? { durability: connected.durability } : {}),
      }),
    );
    // One pacer for every Telegram client: a group's replies and its notices share a minute.
    const pacer = options.merchant?.pacer ?? new TelegramPacer();
    const tag = options.merchant ? { tag: options.merchant.tag } : {};
    // Confirms editing their prompts, known to the notices' messenger of this process.
    const prompts = new PromptWatch(now);
    const bot = createBot({
      pacer,
      prompts,
      token,
      apiRoot: config.telegram.apiRoot,
      payouts,
      stores,
      logger,
      timeZone: config.timeZone,
      pressesPerMinute: config.buttonPressesPerMinute,
      now,
      onNoticeQueued: () => notifier.wake(),
      onBatchWork: () => batchWorker.wake(),
      ...(events ? { events: events.dispatch } : {}),
      stepUp: config.stepUp,
      webAppUrl: config.webApp.url,
      metrics,
      ...tag,
      ...(options.merchant?.defaultLocale ? { defaultLocale: options.merchant.defaultLocale } : {}),
      ...(options.merchant ? { worksForSeveral: options.merchant.worksForSeveral } : {}),
    });
    const botUsername = await botIdentity(bot, logger);
    await registerCommands(bot, logger, { merchants: Boolean(options.merchant) });

    // Notices go to many people in a row (cards to every approver, alerts to every admin):
    // their client is also held to Telegram's rate across chats.
    const notices = boundedTelegram(token, config.telegram.apiRoot, TELEGRAM_CALL_TIMEOUT_MS, {
      pacer,
      broadcast: true,
      metrics,
      ...tag,
    });
    const messenger = new TelegramMessenger(notices, stores, logger, {
      timeZone: config.timeZone,
      duplicateOf: (payout) => payouts.approval.duplicateOf(payout),
      reports: reportDelivery(config, stores, payouts.limits, notices, logger, now),
      stepUp: config.stepUp,
      prompts,
      batches: {
        limits: payouts.limits,
        approvalThresholdXaf: config.rules.approvalThresholdXaf,
        approvalBands: config.rules.approvalBands,
        stuckAfterHours: Math.round(config.stuckAfterMs / 3_600_000),
      },
    });
    // Only values that are set: an explicit `undefined` would override the loops' defaults
    // (`{ ...defaults, ...options }`) and make them spin with no pause at all.
    const tick =
      options.loopTickMs === undefined ? { metrics } : { tickMs: options.loopTickMs, metrics };
    const rest = options.merchant ? { restMs: options.merchant.restMs } : {};
    const notifier = new Notifier({
      stores,
      messenger,
      logger,
      now,
      // A call may wait for its turn under Telegram's limits before its own deadline.
      callTimeoutMs: TELEGRAM_CALL_TIMEOUT_MS + pacer.maxWaitMs,
      ...tick,
      ...rest,
    });
    notifier.start();
    cleanups.push(() => notifier.stop());
    if (events) cleanups.push(events.start());
    // After the notifier: a STAFF change that cancels someone's open payouts tells them.
    const bootstrap = await applyBootstrapStaff(stores.staff, payouts.staff, config.staff, logger);
    logger.info(bootstrap, "staff from STAFF applied; /staff changes kept");
    offerMiniApp(config, stores, bot.telegram, logger);
    const tracker = new PayoutTracker({
      settlement: payouts.settlement,
      stores,
      logger,
      pollIntervalMs: config.statusPollIntervalMs,
      stuckAfterMs: config.stuckAfterMs,
      // PAYOUT_STRANDED_AFTER_SECONDS, and never under 8 request timeouts: a live submission
      // (timeouts, 429 waits) must not be taken for a stranded one.
      submittingLimitMs: Math.max(config.strandedAfterMs, config.payment.timeoutMs * 8),
      stopAfterMs: config.retentionMs,
      ...tick,
      ...rest,
      now,
      onNoticeQueued: () => notifier.wake(),
    });
    wakeTracker = () => tracker.wake();
    await tracker.start();
    cleanups.push(() => tracker.stop());
    // Once the resume is done: the two never hold start-up's memory at the same time.
    backfill();
    const batchWorker = payouts.createBatchWorker({ ...tick, ...rest });
    batchWorker.start();
    cleanups.push(() => batchWorker.stop());
    const scheduler = payouts.createScheduler({ ...tick, ...rest });
    scheduler.start();
    cleanups.push(() => scheduler.stop());
    const reports = startReportLoops({
      config,
      stores,
      lookups: payouts.lookups,
      logger,
      now,
      onQueued: () => notifier.wake(),
      metrics,
      ...(options.loopTickMs === undefined ? {} : { digestTickMs: options.loopTickMs }),
    });
    cleanups.push(() => reports.stop());
    // Two processes cannot listen on one host and port: a stable name for this instance,
    // which takes its own leases back at once when restarted in place.
    const listens = options.http !== false && config.http.port !== 0;
    const owner = options.merchant?.owner
      ? { owner: options.merchant.owner }
      : listens
        ? { owner: `${hostname()}:${config.http.port}` }
        : {};
    const approvalExpiry = new ApprovalExpiry({
      approval: payouts.approval,
      leases: stores.leases,
      logger,
      ...tick,
      // A merchant's sweep rests until an approval is asked for, or the first one lapses.
      ...rest,
      now,
      ...owner,
    });
    approvalExpiry.start();
    cleanups.push(() => approvalExpiry.stop());
    const webhook = new PaymentWebhook({
      settlement: payouts.settlement,
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
    let webAppRoutes: WebAppHandler["routes"] = [];
    let webApp: WebAppHandler | undefined;
    if (options.http !== false || options.merchant) {
      const stepUp = config.stepUp;
      const extraRoutes = stepUp
        ? stepUpRoutes(
            stepUpSteps({
              stores,
              payouts,
              stepUp,
              telegram: bot.telegram,
              logger,
              timeZone: config.timeZone,
              now,
              onBatchWork: () => batchWorker.wake(),
              prompts,
            }),
          )
        : [];
      webApp = createWebApp({
        config,
        stores,
        payouts,
        logger,
        now,
        dir: options.webAppDir,
        extraRoutes,
        telegram: bot.telegram,
        ...(options.merchant
          ? { merchantOf: options.merchant.webAppMerchant, merchantId: options.merchant.id }
          : {}),
      });
      webAppRoutes = webApp?.routes ?? [];
    }
    if (options.http !== false && !options.merchant) {
      http = await startHttpServer({
        ...(webApp ? { webApp } : {}),
        host: config.http.host,
        port: config.http.port,
        logger,
        ...(prometheus && config.metrics.serve?.on === "main" ? { metrics: prometheus } : {}),
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
                replyWithinMs: config.telegram.webhookReplyMs,
                handleUpdate: (update) =>
                  bot.handleUpdate(update as Parameters<typeof bot.handleUpdate>[0]),
              }
            : undefined,
      });
      const server = http;
      cleanups.push(() => server.close());
    }

    let metricsServer: MetricsServerHandle | undefined;
    const serve = config.metrics.serve;
    if (prometheus && serve?.on === "own") {
      const started = await startMetricsServer({ ...serve, source: prometheus, logger });
      metricsServer = started;
      cleanups.push(() => started.close());
    }

    let poller: UpdatePoller | undefined;
    if (options.merchant) {
      // The front reads updates and hands this merchant's to `bot.handleUpdate`.
    } else if (webhookUrl && webhookSecret) {
      await requiredTelegramCall("setWebhook", () =>
        bot.telegram.setWebhook(webhookUrl, {
          secret_token: webhookSecret,
          allowed_updates: ["message", "callback_query"],
        }),
      );
    } else {
      await requiredTelegramCall("deleteWebhook", () => bot.telegram.deleteWebhook());
      const pollTimeoutSeconds = options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS;
      const started = new UpdatePoller({
        ...owner,
        telegram: longPollTelegram(token, config.telegram.apiRoot, pollTimeoutSeconds, metrics),
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
      payouts,
      tracker,
      notifier,
      reports,
      webhook,
      poller,
      http,
      metricsServer,
      webAppRoutes,
      webApp,
      mode,
      botUsername,
      wakeLoops: (queue) => {
        const loops = { notifier, tracker, batchWorker, scheduler, approvalExpiry };
        for (const loop of loopsFor(loops, queue)) loop.wake();
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
