/**
 * What one merchant's runtime takes from the front that runs it (app-merchants.ts) when the
 * bot serves several (MERCHANTS_FILE): `startApp`'s `merchant` option.
 */
import type { RedisConnections } from "./app-storage.js";
import type { TelegramPacer } from "./bot/telegram/pacing.js";
import type { TelegramCallTag } from "./bot/telegram/transport.js";
import type { WebAppMerchant } from "./http/webapp/auth.js";
import type { PrometheusMetrics } from "./metrics/prometheus.js";
import type { Locale } from "./model/locale.js";

/** What a merchant's runtime takes from the front that runs it. */
export interface MerchantRuntimeOptions {
  /** The merchant's id: its Mini App's signed links name it. */
  id: string;
  /** Sees every Telegram call of this merchant's clients (merchant-tag.ts). */
  tag: TelegramCallTag;
  /** Telegram's limits are the bot token's: one pacer for every merchant. */
  pacer: TelegramPacer;
  /** This merchant and the others the person works for, for the Mini App's header. */
  webAppMerchant: (userId: number) => Promise<WebAppMerchant>;
  /** Where this merchant's metrics go (the deployment's /metrics); undefined: metrics off. */
  metrics: PrometheusMetrics | undefined;
  /** Whether the person works for more than one merchant (their /help names /merchant). */
  worksForSeveral: (userId: number) => Promise<boolean>;
  /** The merchant's language for people whose Telegram app speaks neither English nor French. */
  defaultLocale: Locale | undefined;
  /** The front's stable lease owner (host and port), when it listens; else a random one. */
  owner: string | undefined;
  /** The front's Redis connections, lent to every merchant: stopping this runtime keeps them. */
  redis: RedisConnections;
  /** The loops' rest after a round that found nothing (docs/scaling.md); one merchant: none. */
  restMs: number;
  /** Called before anyone is made staff here: the front's directory of who works where. */
  staffAdded: (userId: number) => Promise<void>;
}
