/**
 * One bot for many businesses (MERCHANTS_FILE). Each merchant gets a runtime: everything
 * `startApp` builds (its stores under its own hash-tagged prefix, its Payment API client and
 * key, its payout steps, its loops, its Telegraf bot) but the Telegram transport and the HTTP
 * server. This front owns those two: it reads each update once and hands it to the runtime
 * it belongs to, and serves every merchant's payment callbacks (`/webhooks/payments/<id>`)
 * and Mini App.
 *
 * Which runtime an update belongs to:
 * - a button press (or a reply) on a message a merchant sent with buttons: that merchant,
 *   always (the message was recorded as theirs when sent: telegram/merchant-tag.ts), so a card
 *   of A acts in A even after the person switched to B;
 * - anything else: the merchant the person chose with /merchant (a global key), while they
 *   still work for it; else the first they work for; else the first (which refuses strangers).
 *
 * SIGHUP re-reads the file (`reload`): merchants added are started, removed ones stopped
 * (their data stays), changed ones (a key rotated) started anew before the old runtime stops
 * once its updates in hand are done. A bad file keeps everything as it was, and says why.
 */
import { hostname } from "node:os";
import { Markup } from "telegraf";
import type { Update } from "telegraf/types";
import { type App, type AppOptions, StartupError, startApp } from "./app.js";
import { startMerchants } from "./app-merchants-start.js";
import { routeWakes } from "./app-merchants-wakes.js";
import { choiceOf, merchantsWebApp } from "./app-merchants-webapp.js";
import { connectRedis } from "./app-storage.js";
import { merchantTag } from "./bot/telegram/merchant-tag.js";
import { TelegramPacer } from "./bot/telegram/pacing.js";
import { DEFAULT_POLL_TIMEOUT_SECONDS, UpdatePoller } from "./bot/telegram/poller.js";
import {
  boundedTelegram,
  longPollTelegram,
  TELEGRAM_CALL_TIMEOUT_MS,
} from "./bot/telegram/transport.js";
import { ConfigError } from "./config/index.js";
import { loadMerchants, type MerchantConfig } from "./config/merchants.js";
import { type MetricsServerHandle, startMetricsServer } from "./http/metrics-server.js";
import { type HttpServerHandle, startHttpServer } from "./http/server.js";
import { translator } from "./i18n.js";
import { MerchantDirectory } from "./merchant-directory.js";
import { DeploymentMetrics } from "./metrics/deployment.js";
import type { PrometheusMetrics } from "./metrics/prometheus.js";
import { localeFromLanguageCode } from "./model/locale.js";
import { UNTIL_WOKEN } from "./payouts/loops/runner.js";
import { requiredTelegramCall } from "./startup-checks.js";
import { globalKeys } from "./store/keys.js";
import { RedisLeaseStore } from "./store/redis/leases.js";

export interface MerchantsAppOptions
  extends Omit<AppOptions, "config" | "merchant" | "stores" | "webAppDir"> {
  /** The environment MERCHANTS_FILE is read against, now and on every reload. */
  env: NodeJS.ProcessEnv;
  /** The file as read at start (`loadMerchants(env)`). */
  merchants: MerchantConfig[];
  webAppDir?: string;
  /** How long an idle merchant's loops rest at most (default: until woken, docs/scaling.md). */
  restMs?: number;
}

/** One merchant as it runs. */
export interface MerchantRuntime {
  readonly merchant: MerchantConfig;
  readonly app: App;
}

export type ReloadResult =
  | { outcome: "reloaded"; added: string[]; removed: string[]; restarted: string[] }
  | { outcome: "refused"; problems: readonly string[] };

export interface MerchantsApp {
  /** The merchants running now, by id. */
  readonly runtimes: ReadonlyMap<string, MerchantRuntime>;
  readonly http: HttpServerHandle | undefined;
  /** `/metrics` on a server of its own (METRICS_PORT); undefined otherwise. */
  readonly metricsServer: MetricsServerHandle | undefined;
  readonly poller: UpdatePoller | undefined;
  readonly mode: "polling" | "webhook";
  readonly botUsername: string;
  /** Hands one update to its merchant's runtime (what the poller and the webhook call). */
  dispatch(update: Update): Promise<void>;
  /** Re-reads MERCHANTS_FILE (SIGHUP). */
  reload(): Promise<ReloadResult>;
  stop(): Promise<void>;
}

const CHOOSE_PREFIX = "merchant:";

/** A runtime's updates in hand: a runtime replaced by a reload stops once they are done. */
class InFlight {
  readonly #work = new Set<Promise<unknown>>();
  track<T>(work: Promise<T>): Promise<T> {
    this.#work.add(work);
    void work.finally(() => this.#work.delete(work)).catch(() => {});
    return work;
  }
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#work]);
  }
}

interface Running extends MerchantRuntime {
  inFlight: InFlight;
  metrics: PrometheusMetrics | undefined;
}

export async function startMerchantsApp(options: MerchantsAppOptions): Promise<MerchantsApp> {
  const { logger } = options;
  const [first] = options.merchants;
  if (!first) throw new StartupError("MERCHANTS_FILE lists no merchant.");
  // What every merchant shares comes from the environment: the same in each one's config.
  const shared = first.config;
  const { token, apiRoot } = shared.telegram;
  if (!token) throw new StartupError("TELEGRAM_BOT_TOKEN is required.");
  const keys = globalKeys(first.sharedKeyPrefix);
  const cleanups: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse())
      await cleanup().catch((error: unknown) => logger.warn({ err: error }, "stop step failed"));
  };
  const runtimes = new Map<string, Running>();
  const pacer = new TelegramPacer();
  try {
    // One connection set for every merchant (keys differ by prefix, not by connection): closed
    // last, after every runtime has stopped; a runtime stopped by a reload leaves it open.
    const redis = await connectRedis(shared, logger);
    cleanups.push(() => redis.close());
    const connection = redis.redis;
    // Work written by any replica wakes the loops resting until woken (app-merchants-wakes.ts).
    const wakes = routeWakes(connection, first.sharedKeyPrefix, () => runtimes.values(), logger);
    cleanups.push(() => wakes.close());
    // Who works where: a global set per person names the merchants to ask (merchant-directory.ts).
    const directory = new MerchantDirectory(connection, keys.staffOf, () =>
      [...runtimes.values()].map((running) => ({
        id: running.merchant.id,
        roleOf: (userId: number) => running.app.stores.staff.get(userId),
      })),
    );
    /** The ids of the merchants `userId` is staff of, in the file's order. */
    const merchantsOf = (userId: number) => directory.merchantsOf(userId);

    // A stable lease owner (this host and port) takes its own leases back at once on a restart.
    const listens = options.http !== false && shared.http.port !== 0;
    const owner: { owner?: string } = listens ? { owner: `${hostname()}:${shared.http.port}` } : {};
    // A runtime started by a reload runs beside the one it replaces for a moment: its own
    // random owner keeps the two from both holding one lease.
    const startRuntime = async (merchant: MerchantConfig, reloaded = false): Promise<Running> => {
      const metrics = shared.metrics.serve ? DeploymentMetrics.forMerchant(merchant.id) : undefined;
      const tag = merchantTag({
        name: merchant.name,
        named: async (chatId) =>
          chatId < 0 ? runtimes.size > 1 : (await merchantsOf(chatId)).length > 1,
        remember: async (chatId, messageId) => {
          await connection.set(
            keys.messageMerchant(chatId, messageId),
            merchant.id,
            "PX",
            merchant.config.retentionMs,
          );
        },
        warn: (error) =>
          logger.warn({ err: error, merchant: merchant.id }, "a message's merchant not recorded"),
      });
      const app = await startApp({
        ...options,
        // Its metrics go to the deployment's /metrics (`metrics` below), not a server of its own.
        config: { ...merchant.config, metrics: { ...merchant.config.metrics, serve: undefined } },
        logger: logger.child({ merchant: merchant.id }),
        http: false,
        merchant: {
          id: merchant.id,
          tag,
          pacer,
          metrics,
          defaultLocale: merchant.language,
          owner: reloaded ? undefined : owner.owner,
          redis,
          restMs: options.restMs ?? UNTIL_WOKEN,
          worksForSeveral: async (userId) => (await merchantsOf(userId)).length > 1,
          webAppMerchant: async (userId) =>
            choiceOf(merchant, await merchantsOf(userId), (id) => runtimes.get(id)?.merchant),
          staffAdded: (userId) => directory.add(merchant.id, userId),
        },
      });
      try {
        await directory.addAll(merchant.id, await app.stores.staff.list());
      } catch (error) {
        await app.stop();
        throw error;
      }
      return { merchant, app, inFlight: new InFlight(), metrics };
    };

    const stopRuntime = async (running: Running) => {
      await running.inFlight.idle();
      await running.app.stop();
    };
    cleanups.push(async () => {
      await Promise.all([...runtimes.values()].map((running) => stopRuntime(running)));
    });
    // A few at a time; a merchant that fails is named, and those started are stopped above.
    await startMerchants(options.merchants, (merchant) => startRuntime(merchant), runtimes);
    directory.forget();

    /** The runtime of the merchant the person's commands act on. */
    const currentOf = async (userId: number): Promise<Running | undefined> => {
      const [chosen, mine] = await Promise.all([
        connection.get(keys.currentMerchant(userId)),
        merchantsOf(userId),
      ]);
      const id = chosen !== null && mine.includes(chosen) ? chosen : mine[0];
      return id === undefined ? undefined : runtimes.get(id);
    };

    const firstRuntime = (): Running => {
      const [running] = runtimes.values();
      if (!running) throw new Error("no merchant runs");
      return running;
    };

    /** The person's language: their /lang choice in the merchant they act for, else Telegram's. */
    const localeOf = async (userId: number, languageCode: string | undefined) => {
      const current = await currentOf(userId);
      const saved = await current?.app.stores.sessions.getLocale(userId);
      return saved ?? localeFromLanguageCode(languageCode, current?.merchant.language);
    };

    const telegram = boundedTelegram(token, apiRoot, TELEGRAM_CALL_TIMEOUT_MS, { pacer });

    /** `/merchant`: the person's merchants as buttons, or why there is nothing to choose. */
    const listMerchants = async (userId: number, chatId: number, languageCode?: string) => {
      const t = translator(await localeOf(userId, languageCode));
      const mine = await merchantsOf(userId);
      const current = await currentOf(userId);
      if (!current || mine.length === 0) {
        await telegram.sendMessage(chatId, t("merchant.none"), { parse_mode: "HTML" });
        return;
      }
      if (mine.length === 1) {
        await telegram.sendMessage(chatId, t("merchant.single", { name: current.merchant.name }), {
          parse_mode: "HTML",
        });
        return;
      }
      const buttons = mine.flatMap((id) => {
        const running = runtimes.get(id);
        if (!running) return [];
        const mark = id === current.merchant.id ? "✅ " : "";
        return [
          [Markup.button.callback(`${mark}${running.merchant.name}`, `${CHOOSE_PREFIX}${id}`)],
        ];
      });
      await telegram.sendMessage(
        chatId,
        t("merchant.choose", { count: mine.length, name: current.merchant.name }),
        { parse_mode: "HTML", ...Markup.inlineKeyboard(buttons) },
      );
    };

    /** A press on one of /merchant's buttons: the person's commands act there from now on. */
    const choose = async (query: Update.CallbackQueryUpdate["callback_query"], id: string) => {
      const t = translator(await localeOf(query.from.id, query.from.language_code));
      const mine = await merchantsOf(query.from.id);
      const running = runtimes.get(id);
      if (!running || !mine.includes(id)) {
        await telegram.answerCbQuery(query.id, t.plain("merchant.gone"));
        return;
      }
      await connection.set(keys.currentMerchant(query.from.id), id);
      const text = t("merchant.switched", { name: running.merchant.name });
      await telegram.answerCbQuery(
        query.id,
        t.plain("merchant.switched", { name: running.merchant.name }),
      );
      const message = query.message;
      if (message) {
        await telegram
          .editMessageText(message.chat.id, message.message_id, undefined, text, {
            parse_mode: "HTML",
          })
          .catch((error: unknown) => logger.debug({ err: error }, "merchant list not edited"));
      }
    };

    /** The runtime whose message this update answers (a press, or a reply), if any. */
    const ownerOfMessage = async (update: Update): Promise<Running | undefined> => {
      const message =
        "callback_query" in update
          ? update.callback_query.message
          : "message" in update && "reply_to_message" in update.message
            ? update.message.reply_to_message
            : undefined;
      if (!message) return undefined;
      const id = await connection.get(keys.messageMerchant(message.chat.id, message.message_id));
      return id === null ? undefined : runtimes.get(id);
    };

    const dispatch = async (update: Update): Promise<void> => {
      if ("callback_query" in update) {
        const data = "data" in update.callback_query ? update.callback_query.data : undefined;
        if (data?.startsWith(CHOOSE_PREFIX)) {
          return choose(update.callback_query, data.slice(CHOOSE_PREFIX.length));
        }
      }
      if ("message" in update && "text" in update.message) {
        const { text, from, chat } = update.message;
        if (/^\/merchant(@\w+)?(\s|$)/.test(text) && chat.type === "private") {
          return listMerchants(from.id, chat.id, from.language_code);
        }
      }
      const from =
        "callback_query" in update
          ? update.callback_query.from
          : "message" in update
            ? update.message.from
            : undefined;
      const running =
        (await ownerOfMessage(update)) ??
        (from ? await currentOf(from.id) : undefined) ??
        firstRuntime();
      await running.inFlight.track(running.app.bot.handleUpdate(update));
    };

    const mode =
      shared.telegram.webhookUrl && shared.telegram.webhookSecret ? "webhook" : "polling";
    const serve = shared.metrics.serve;
    const metrics = serve
      ? new DeploymentMetrics(() => [...runtimes.values()].flatMap((r) => r.metrics ?? []))
      : undefined;
    let http: HttpServerHandle | undefined;
    if (options.http !== false) {
      const webApp = merchantsWebApp({
        routes: () => firstRuntime().app.webApp?.routes ?? [],
        byId: (id) => runtimes.get(id)?.app.webApp,
        current: async (userId) =>
          ((userId ? await currentOf(userId) : undefined) ?? firstRuntime()).app.webApp,
        auth: {
          botToken: token,
          maxAgeSeconds: shared.webApp.authMaxAgeSeconds,
          now: options.now ?? Date.now,
        },
      });
      const { webhookUrl, webhookSecret } = shared.telegram;
      http = await startHttpServer({
        host: shared.http.host,
        port: shared.http.port,
        logger,
        webApp,
        ...(metrics && serve?.on === "main" ? { metrics } : {}),
        health: async () => {
          const checks = await Promise.all(
            [...runtimes.values()].map((running) => running.app.stores.ping()),
          );
          return checks.every(Boolean);
        },
        paymentWebhook: {
          path: shared.payment.webhookPath,
          // The old path keeps working while there is one merchant only.
          receive: async (request) => {
            if (runtimes.size !== 1) {
              return { status: 404, body: { ok: false, error: "name the merchant in the path" } };
            }
            return firstRuntime().app.webhook.receive(request);
          },
          merchant: (id) => {
            const running = runtimes.get(id);
            return running ? (request) => running.app.webhook.receive(request) : undefined;
          },
        },
        ...(webhookUrl && webhookSecret
          ? {
              telegramWebhook: {
                path: new URL(webhookUrl).pathname,
                secret: webhookSecret,
                replyWithinMs: shared.telegram.webhookReplyMs,
                // The emulator and Telegram send updates; their shape is Telegram's.
                handleUpdate: (update: unknown) => dispatch(update as Update),
              },
            }
          : {}),
      });
      const server = http;
      cleanups.push(() => server.close());
    }

    let metricsServer: MetricsServerHandle | undefined;
    if (metrics && serve?.on === "own") {
      const started = await startMetricsServer({ ...serve, source: metrics, logger });
      metricsServer = started;
      cleanups.push(() => started.close());
    }

    let poller: UpdatePoller | undefined;
    const { webhookUrl, webhookSecret } = shared.telegram;
    if (webhookUrl && webhookSecret) {
      await requiredTelegramCall("setWebhook", () =>
        telegram.setWebhook(webhookUrl, {
          secret_token: webhookSecret,
          allowed_updates: ["message", "callback_query"],
        }),
      );
    } else {
      await requiredTelegramCall("deleteWebhook", () => telegram.deleteWebhook());
      const pollTimeoutSeconds = options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS;
      const started = new UpdatePoller({
        ...owner,
        telegram: longPollTelegram(token, apiRoot, pollTimeoutSeconds),
        handleUpdate: dispatch,
        leases: new RedisLeaseStore(connection, (name) => `${first.sharedKeyPrefix}lease:${name}`),
        logger,
        pollTimeoutSeconds,
      });
      started.start();
      poller = started;
      cleanups.push(() => started.stop());
    }

    let reloading: Promise<ReloadResult> = Promise.resolve({
      outcome: "reloaded",
      added: [],
      removed: [],
      restarted: [],
    });
    const reloadOnce = async (): Promise<ReloadResult> => {
      let next: MerchantConfig[];
      try {
        next = loadMerchants(options.env, "start").merchants;
      } catch (error) {
        const problems =
          error instanceof ConfigError
            ? error.problems
            : [error instanceof Error ? error.message : String(error)];
        logger.error({ problems }, "MERCHANTS_FILE not reloaded: the merchants as they were go on");
        return { outcome: "refused", problems };
      }
      const added: string[] = [];
      const restarted: string[] = [];
      const removed: string[] = [];
      for (const merchant of next) {
        const running = runtimes.get(merchant.id);
        if (running && running.merchant.fingerprint === merchant.fingerprint) continue;
        let started: Running;
        try {
          started = await startRuntime(merchant, true);
        } catch (error) {
          logger.error(
            { err: error, merchant: merchant.id },
            running
              ? "merchant not restarted with its new settings; it goes on with the old ones"
              : "new merchant not started",
          );
          continue;
        }
        // From here on its updates and callbacks go to the new runtime; the old one stops
        // once the updates it has in hand are done. Payouts in flight are in Redis, under the
        // same prefix: the new runtime's tracker resumes them.
        runtimes.set(merchant.id, started);
        directory.forget();
        if (running) {
          restarted.push(merchant.id);
          await stopRuntime(running);
        } else added.push(merchant.id);
      }
      const kept = new Set(next.map((merchant) => merchant.id));
      for (const [id, running] of [...runtimes]) {
        if (kept.has(id)) continue;
        runtimes.delete(id);
        directory.forget();
        removed.push(id);
        await stopRuntime(running);
      }
      logger.info({ added, removed, restarted }, "MERCHANTS_FILE reloaded");
      return { outcome: "reloaded", added, removed, restarted };
    };

    return {
      runtimes,
      http,
      metricsServer,
      poller,
      mode,
      botUsername: firstRuntime().app.botUsername,
      dispatch,
      reload: () => {
        reloading = reloading.then(reloadOnce, reloadOnce);
        return reloading;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
