/**
 * Wires the Mini App (src/http/webapp/) to the stores and the payout steps: the page's
 * files, the init data check, the per-person request limit, and the steps its routes call.
 * Part of the composition root, like app-reports.ts: the HTTP layer itself sees only the
 * steps, never a store.
 */
import { Buffer } from "node:buffer";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Input, type Telegram, TelegramError } from "telegraf";
import { setStaffMenuButtons } from "./bot/features/dashboard.js";
import type { Config } from "./config/index.js";
import { historyCsv } from "./csv/history-csv.js";
import type { WebAppMerchant, WebAppUser } from "./http/webapp/auth.js";
import {
  type DashboardSteps,
  dashboardRoutes,
  historyParamsOf,
  queryOf,
} from "./http/webapp/dashboard-routes.js";
import { signFileLink } from "./http/webapp/file-links.js";
import { createWebAppHandler, type LinkedFile, type WebAppHandler } from "./http/webapp/handler.js";
import { type RecipientSteps, recipientRoutes } from "./http/webapp/recipient-routes.js";
import type { WebAppRoute } from "./http/webapp/routes.js";
import {
  SCHEDULES_SHOWN,
  type ScheduleSteps,
  scheduleRoutes,
} from "./http/webapp/schedule-routes.js";
import { loadStaticFiles } from "./http/webapp/static.js";
import type { Logger } from "./logger.js";
import { actorFields, staffActor } from "./model/audit.js";
import { batchDetail, batchList, payoutDetail } from "./payouts/dashboard/details.js";
import { type HistoryQuery, historyPage, searchHistory } from "./payouts/dashboard/history.js";
import { overviewFor } from "./payouts/dashboard/overview.js";
import type { Payouts } from "./payouts/payouts.js";
import { StartupError } from "./startup-checks.js";
import type { Stores } from "./store/types.js";

/** Requests one person may make to `/app/api/` in a minute: a busy page, not a script. */
export const WEBAPP_REQUESTS_PER_MINUTE = 120;

/**
 * Where `npm run build` writes the page: `dist/web/`, found from this file both when run
 * from source (src/ → ../dist/web) and when built (dist/src/ → ../web).
 */
export function defaultWebAppDir(): string | undefined {
  for (const relative of ["../dist/web/", "../web/"]) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

export interface WebAppWiring {
  config: Config;
  stores: Stores;
  payouts: Payouts;
  logger: Logger;
  now: () => number;
  /** The built page; default `defaultWebAppDir()`. */
  dir?: string | undefined;
  /** Route files of other parts (the PIN), added after the dashboard's. */
  extraRoutes?: readonly WebAppRoute[];
  /** The bot's Telegram client: sends an export to a person's chat. */
  telegram?: Pick<Telegram, "sendDocument">;
  /** This merchant and the person's others (MERCHANTS_FILE); none: one merchant, no header. */
  merchantOf?: (userId: number) => Promise<WebAppMerchant>;
  /** The merchant's id (MERCHANTS_FILE), named in its signed links; none: the only one. */
  merchantId?: string | undefined;
}

/** The CSV's name; it names the merchant to a person who works for several (MERCHANTS_FILE). */
function historyFileName(query: HistoryQuery, user: WebAppUser): string {
  const period = [query.from, query.to].filter(Boolean).join("-to-");
  const merchant = user.merchants && user.merchantId ? `-${user.merchantId}` : "";
  return `payouts${merchant}${period ? `-${period}` : ""}-filtered.csv`;
}

/** The History's CSV through a signed link: the same file, permission and audit as the API's. */
function historyCsvFile(steps: DashboardSteps): LinkedFile {
  return {
    name: "history-csv",
    capability: "export",
    async serve(user, params) {
      const query = queryOf(params);
      if (query === null) return { status: 400, json: { error: "bad_query" } };
      const file = await steps.historyCsv(user, query);
      if (file === null) return { status: 404, json: { error: "empty" } };
      return {
        status: 200,
        file: { name: file.name, type: "text/csv; charset=utf-8", text: file.text },
      };
    },
  };
}

export function dashboardSteps(wiring: WebAppWiring): DashboardSteps {
  const { config, stores, payouts, now } = wiring;
  const history = { stores, timeZone: config.timeZone, now };
  const steps: DashboardSteps = {
    overview: (asker) =>
      overviewFor(
        { stores, timeZone: config.timeZone, stuckAfterMs: config.stuckAfterMs, now },
        asker,
      ),
    history: (asker, query) => historyPage(history, asker, query),
    async historyCsv(user: WebAppUser, query) {
      const asker = { userId: user.id, role: user.role };
      const found = await searchHistory(history, asker, { ...query, page: 0 });
      const name = historyFileName(query, user);
      const file = await historyCsv({
        stores,
        items: found.items,
        locale: user.language,
        timeZone: config.timeZone,
        fileName: name,
      });
      // On the record as /export is: who took which payouts out, and how many.
      await stores.audit.record({
        atMs: now(),
        ...actorFields(staffActor(asker)),
        action: "export",
        details: {
          what: "payouts",
          via: "mini_app",
          ...(query.q ? { search: query.q } : {}),
          ...(query.status ? { status: query.status } : {}),
          ...(query.kind ? { kind: query.kind } : {}),
          ...(query.operator ? { operator: query.operator } : {}),
          ...(query.amount ? { amount: query.amount } : {}),
          ...(query.from ? { from: query.from } : {}),
          ...(query.to ? { to: query.to } : {}),
          rows: file?.rows ?? 0,
        },
      });
      return file === null ? null : { name, text: file.text };
    },
    async sendHistoryCsv(user, query) {
      const file = await steps.historyCsv(user, query);
      if (file === null) return null;
      if (!wiring.telegram) throw new Error("the Mini App has no Telegram client to send with");
      try {
        await wiring.telegram.sendDocument(
          user.id,
          Input.fromBuffer(Buffer.from(file.text, "utf8"), file.name),
        );
      } catch (error) {
        // No chat to send to (never started, or the bot blocked): the page says so.
        if (error instanceof TelegramError && [400, 403].includes(error.code)) {
          return { outcome: "no_chat" as const };
        }
        throw error;
      }
      return { outcome: "sent" as const, name: file.name };
    },
    async historyCsvLink(user, query) {
      const token = config.telegram.token;
      if (!token) throw new Error("the Mini App has no bot token to sign links with");
      const asker = { userId: user.id, role: user.role };
      const found = await searchHistory(history, asker, { ...query, page: 0 });
      if (found.items.length === 0) return null;
      const name = historyFileName(query, user);
      const link = signFileLink({
        botToken: token,
        name: "history-csv",
        query: historyParamsOf(query),
        userId: user.id,
        language: user.language,
        nowMs: now(),
        merchant: wiring.merchantId,
      });
      return { ...link, name };
    },
    payout: (asker, id) => payoutDetail(stores, asker, id),
    batches: (asker) => batchList(stores, asker),
    batch: (asker, id, only) => batchDetail(stores, asker, id, only),
    waiting: (asker) => payouts.approval.waitingFor(asker),
    async approve(asker, id, duplicateSeenAtMs) {
      const options = duplicateSeenAtMs === undefined ? {} : { duplicateSeenAtMs };
      const decision = await payouts.approval.approve(id, asker, options);
      if (decision.outcome !== "claimed") return { decision };
      // Claimed: the one request leaves at once, through the same submission as a Confirm.
      return { decision, submitted: await payouts.submission.submit(decision) };
    },
    reject: (asker, id) => payouts.approval.reject(id, asker),
    deciders: (waiting) => payouts.approval.approversOfEach(waiting),
    names: (userIds) => staffNames(stores, userIds),
  };
  return steps;
}

async function staffNames(stores: Stores, userIds: readonly number[]) {
  const profiles = await stores.profiles.getMany(userIds);
  return new Map([...profiles].map(([id, profile]) => [id, profile.firstName]));
}

/** The Schedules page's steps: the chat's own list and Pause / Resume / Delete. */
export function scheduleSteps(wiring: WebAppWiring): ScheduleSteps {
  const { schedules, recipients } = wiring.payouts;
  return {
    list: (asker) => schedules.list(asker, SCHEDULES_SHOWN),
    nextRuns: (schedule, count) =>
      schedules.nextRuns(schedule.recurrence, count, schedule.nextRunAtMs).map((run) => run.atMs),
    change: (asker, id, step) => schedules.change(id, asker, step),
    async aliases() {
      const byPhone = new Map<string, string[]>();
      for (const entry of await recipients.list()) {
        byPhone.set(entry.phone, [...(byPhone.get(entry.phone) ?? []), entry.alias]);
      }
      return byPhone;
    },
    names: (userIds) => staffNames(wiring.stores, userIds),
    timeZone: wiring.config.timeZone,
  };
}

/** The Saved recipients page's steps: /recipients' search and /forget. */
export function recipientSteps(wiring: WebAppWiring): RecipientSteps {
  const { recipients } = wiring.payouts;
  return {
    list: (words) => recipients.list(words),
    forget: (alias, asker) => recipients.forget(alias, asker),
    names: (userIds) => staffNames(wiring.stores, userIds),
  };
}

/** The Mini App's handler, or undefined when its page is not built (and not required). */
export function createWebApp(wiring: WebAppWiring): WebAppHandler | undefined {
  const { config, stores, logger, now } = wiring;
  const dir = wiring.dir ?? defaultWebAppDir();
  if (dir === undefined) {
    if (config.webApp.url !== undefined) {
      throw new StartupError(
        "WEBAPP_URL is set but the Mini App's page is not built: run `npm run build` (it writes dist/web/).",
      );
    }
    logger.warn("the Mini App's page is not built (npm run build): /app/ is off");
    return undefined;
  }
  const token = config.telegram.token;
  if (!token) return undefined;
  const steps = dashboardSteps(wiring);
  return createWebAppHandler({
    auth: {
      botToken: token,
      maxAgeSeconds: config.webApp.authMaxAgeSeconds,
      now,
      staff: {
        roleOf: (userId) => stores.staff.get(userId),
        savedLocale: (userId) => stores.sessions.getLocale(userId),
        ...(wiring.merchantOf ? { merchantOf: wiring.merchantOf } : {}),
      },
    },
    routes: [
      ...dashboardRoutes(steps),
      ...scheduleRoutes(scheduleSteps(wiring)),
      ...recipientRoutes(recipientSteps(wiring)),
      ...(wiring.extraRoutes ?? []),
    ],
    linkedFiles: [historyCsvFile(steps)],
    merchant: wiring.merchantId,
    files: loadStaticFiles(dir),
    takeRequest: (userId) =>
      stores.throttles.take(`webapp:${userId}`, WEBAPP_REQUESTS_PER_MINUTE, 60_000),
    logger,
  });
}

/**
 * With WEBAPP_URL set, every staff member's private chat gets the Mini App as its menu
 * button, in their language (in the background: a start never waits on Telegram for it).
 */
export function offerMiniApp(
  config: Config,
  stores: Stores,
  telegram: Parameters<typeof setStaffMenuButtons>[0],
  logger: Logger,
): void {
  const url = config.webApp.url;
  if (url === undefined) return;
  const work = async () => {
    const staff = await stores.staff.list();
    const locales = await Promise.all(
      staff.map((member) => stores.sessions.getLocale(member.userId)),
    );
    const members = staff.map((member, index) => ({
      userId: member.userId,
      locale: locales[index] ?? ("en" as const),
    }));
    await setStaffMenuButtons(telegram, members, url, logger);
  };
  work().catch((error: unknown) =>
    logger.warn({ err: error }, "could not set the staff's menu buttons"),
  );
}
