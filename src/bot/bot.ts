/**
 * Builds the Telegraf bot: the access rules, then one Composer per feature, in order.
 * Nothing about a command lives here.
 */

import { Telegraf } from "telegraf";
import type { BotCommand } from "telegraf/types";
import { translator } from "../i18n.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Locale } from "../model/locale.js";
import type { EventDispatch } from "../payouts/loops/events.js";
import type { Payouts } from "../payouts/payouts.js";
import { isStoreUnavailableError } from "../store/errors.js";
import type { Stores } from "../store/types.js";
import { BotContext } from "./context.js";
import { access, sequentialPerChat } from "./features/access.js";
import { adminFeature } from "./features/admin.js";
import { approvalFeature } from "./features/approval.js";
import { batchFeature } from "./features/batch.js";
import { batchApprovalFeature } from "./features/batch-approval.js";
import { dashboardFeature } from "./features/dashboard.js";
import { eventsFeature } from "./features/events.js";
import { fallbackFeature, helpFeature } from "./features/help.js";
import { limitsFeature } from "./features/limits.js";
import { lookupFeature } from "./features/lookup.js";
import { payFeature } from "./features/pay.js";
import { pinFeature } from "./features/pin.js";
import { recipientsFeature } from "./features/recipients.js";
import { reportsFeature } from "./features/reports.js";
import { scheduleFeature } from "./features/schedule.js";
import { ConfirmAhead } from "./features/shared/confirm-ahead.js";
import { PayAhead } from "./features/shared/pay-ahead.js";
import { statusFeature } from "./features/status.js";
import { cosmetic } from "./telegram/failures.js";
import { FlatComposer } from "./telegram/flat-composer.js";
import type { TelegramPacer } from "./telegram/pacing.js";
import { PromptWatch } from "./telegram/prompt-watch.js";
import { replyHtml } from "./telegram/reply.js";
import {
  boundedTelegram,
  TELEGRAM_CALL_TIMEOUT_MS,
  type TelegramCallTag,
} from "./telegram/transport.js";
import type { StepUpSettings } from "./views/step-up.js";

export interface BotDeps {
  token: string;
  apiRoot: string;
  payouts: Payouts;
  stores: Stores;
  logger: Logger;
  /** IANA zone of the times in messages; default Africa/Douala. */
  timeZone?: string;
  /** Button presses one person may make in a minute (BUTTON_PRESSES_PER_MINUTE); default 60. */
  pressesPerMinute?: number;
  now?: () => number;
  /** Called after a command queued a notice in the outbox (to deliver it at once). */
  onNoticeQueued?: () => void;
  /** Called when a batch has work for the batch worker (an upload, a Confirm). */
  onBatchWork?: () => void;
  /** The signed events (/events); undefined when EVENTS_URL is unset. */
  events?: EventDispatch;
  /** The PIN before big money moves; undefined when STEP_UP_THRESHOLD_XAF is unset. */
  stepUp?: StepUpSettings | undefined;
  /** WEBAPP_URL: /dashboard opens the Mini App there; undefined: it says how to set it up. */
  webAppUrl?: string | undefined;
  /** Telegram's limits, shared with the notices' client (default: the bot's own). */
  pacer?: TelegramPacer;
  /** Shared with the notifier's messenger (default: the bot's own). */
  prompts?: PromptWatch;
  /** Failed Bot API calls are counted here. Default: none. */
  metrics?: Metrics;
  /** Sees every call (the merchant this bot speaks for: telegram/merchant-tag.ts). */
  tag?: TelegramCallTag;
  /** The language of people whose Telegram app speaks neither English nor French. */
  defaultLocale?: Locale;
  /** Whether a person works for several merchants (MERCHANTS_FILE): /help names /merchant. */
  worksForSeveral?: (userId: number) => Promise<boolean>;
}

/**
 * Handlers are kept short (slow work is one Payment API call with its own deadline);
 * this bound is below Telegram's 60 s webhook wait.
 */
const HANDLER_TIMEOUT_MS = 45_000;

export function createBot(deps: BotDeps): Telegraf<BotContext> {
  const now = deps.now ?? Date.now;
  const bot = new Telegraf<BotContext>(deps.token, {
    contextType: BotContext,
    handlerTimeout: HANDLER_TIMEOUT_MS,
    telegram: { apiRoot: deps.apiRoot, webhookReply: false },
  });
  // Every call, the handlers' included, goes through one client whose calls end within a
  // deadline (Telegraf makes a client per update from options that would lose the agent).
  bot.telegram = boundedTelegram(deps.token, deps.apiRoot, TELEGRAM_CALL_TIMEOUT_MS, {
    ...(deps.pacer ? { pacer: deps.pacer } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.tag ? { tag: deps.tag } : {}),
  });
  Object.assign(bot.context, { telegram: bot.telegram });

  const payAhead = new PayAhead(deps.payouts.preparation);
  const confirmAhead = new ConfirmAhead(deps.payouts, payAhead);
  // One flat chain (FlatComposer): every update walks it up to the feature it is for.
  const chain = new FlatComposer<BotContext>();
  bot.use(chain);
  chain.use(sequentialPerChat());
  chain.use(
    access({
      early: (ctx, press, role) => {
        payAhead.start(ctx);
        confirmAhead.start(ctx, press, role);
      },
      // Removed from the staff: their /pay never reaches payFeature to say so.
      stranger: (userId) => payAhead.saw(userId, null),
      payouts: deps.payouts,
      stores: deps.stores,
      logger: deps.logger,
      timeZone: deps.timeZone,
      pressesPerMinute: deps.pressesPerMinute,
      defaultLocale: deps.defaultLocale,
    }),
  );
  chain.use(
    helpFeature({
      payouts: deps.payouts,
      ...(deps.worksForSeveral ? { worksForSeveral: deps.worksForSeveral } : {}),
    }),
  );
  // Before /pay's dialog: a reply to an approval card is a reason, not a dialog's answer.
  chain.use(approvalFeature({ payouts: deps.payouts, stores: deps.stores, stepUp: deps.stepUp }));
  // Before /pay's dialog too: a reply to the question for an alias is the alias.
  chain.use(recipientsFeature({ payouts: deps.payouts, now }));
  chain.use(
    batchFeature({
      payouts: deps.payouts,
      stores: deps.stores,
      now,
      onBatchWork: deps.onBatchWork ?? (() => {}),
    }),
  );
  chain.use(
    batchApprovalFeature({
      payouts: deps.payouts,
      stores: deps.stores,
      onBatchWork: deps.onBatchWork ?? (() => {}),
    }),
  );
  chain.use(
    payFeature({
      payouts: deps.payouts,
      stores: deps.stores,
      now,
      stepUp: deps.stepUp,
      prompts: deps.prompts ?? new PromptWatch(now),
      ahead: payAhead,
    }),
  );
  chain.use(pinFeature({ payouts: deps.payouts, stores: deps.stores, stepUp: deps.stepUp }));
  chain.use(scheduleFeature({ payouts: deps.payouts, now, stepUp: deps.stepUp }));
  chain.use(limitsFeature({ payouts: deps.payouts, stores: deps.stores }));
  chain.use(
    lookupFeature({
      lookups: deps.payouts.lookups,
      stores: deps.stores,
      now,
      onNoticeQueued: deps.onNoticeQueued ?? (() => {}),
    }),
  );
  chain.use(statusFeature({ payouts: deps.payouts, stores: deps.stores }));
  chain.use(adminFeature({ payouts: deps.payouts, stores: deps.stores, now }));
  chain.use(reportsFeature({ payouts: deps.payouts, stores: deps.stores, now }));
  chain.use(eventsFeature({ events: deps.events, now }));
  chain.use(dashboardFeature({ webAppUrl: deps.webAppUrl }));
  chain.use(fallbackFeature());

  bot.catch(async (error, ctx) => {
    const unavailable = isStoreUnavailableError(error);
    deps.logger.error({ err: error, updateId: ctx.update.update_id, unavailable }, "update failed");
    const key = unavailable ? "error.store_unavailable" : "error.internal";
    try {
      // A query is answered once: one already answered ("Sending…") keeps that answer.
      if (ctx.callbackQuery && !ctx.callbackAnswered) await ctx.answerCbQuery(ctx.t.plain(key));
      else if (ctx.chat?.type === "private") await replyHtml(ctx, ctx.t(key));
    } catch (replyError) {
      deps.logger.warn({ err: replyError }, "could not tell the user about a failed update");
    }
  });
  return bot;
}

/**
 * The command menu, in English (default) and French (the doctor compares Telegram's with it);
 * with `merchants` (MERCHANTS_FILE), /merchant too.
 */
export function commandMenu(locale: Locale, options: { merchants?: boolean } = {}): BotCommand[] {
  const t = translator(locale);
  const names = [
    "pay",
    "collect",
    "whois",
    "save",
    "recipients",
    "status",
    "history",
    "availability",
    "approvals",
    "batches",
    "schedule",
    "schedules",
    "limits",
    "cancel",
    "dashboard",
    "pin",
    ...(options.merchants ? (["merchant"] as const) : []),
    "lang",
    "help",
  ] as const;
  return names.map((command) => ({ command, description: t.plain(`menu.${command}`) }));
}

/** Sets the menu; a Bot API that refuses it costs the menu, not the bot (logged, not thrown). */
export async function registerCommands(
  bot: Telegraf<BotContext>,
  logger: Logger,
  options: { merchants?: boolean } = {},
): Promise<void> {
  const { telegram } = bot;
  const set = await cosmetic(
    "setMyCommands",
    () => telegram.setMyCommands(commandMenu("en", options)),
    logger,
  );
  // A Bot API that refused the menu once (some emulators do) refuses the French one too:
  // one warning is enough.
  if (!set) return;
  await cosmetic(
    "setMyCommands",
    () => telegram.setMyCommands(commandMenu("fr", options), { language_code: "fr" }),
    logger,
  );
}
