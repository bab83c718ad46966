/**
 * The Mini App of a bot serving several merchants (MERCHANTS_FILE): which merchant's runtime
 * answers a request. The page names the merchant it shows in the `X-Merchant` header (its
 * switcher); without it, the merchant the person's commands act on (`/merchant`) answers. A
 * file link (Telegram's downloader sends no header) names it in its signed query.
 *
 * The merchant named is never trusted: its own runtime checks the init data and reads the
 * person's role in its own staff list, so someone who is not its staff gets the same 401 or
 * 403 as anywhere else. A name that is no merchant's gets exactly those answers too (init data
 * checked as the runtimes check it, then "not staff"): which merchants exist is not told.
 */
import type { IncomingMessage } from "node:http";
import {
  authenticateWebApp,
  type MerchantChoice,
  uncheckedUserIdOf,
  type WebAppMerchant,
} from "./http/webapp/auth.js";
import { FILE_PREFIX, merchantOfFileLink } from "./http/webapp/file-links.js";
import { API_PREFIX, type WebAppHandler, writeReply } from "./http/webapp/handler.js";

/** The request header by which the Mini App's page names the merchant it shows. */
export const MERCHANT_HEADER = "x-merchant";

export interface MerchantsWebAppOptions {
  /** The named merchant's Mini App; undefined: no such merchant runs. */
  byId(id: string): WebAppHandler | undefined;
  /** The Mini App of the merchant `userId` acts for (unchecked id: its runtime checks it). */
  current(userId: number | undefined): Promise<WebAppHandler | undefined>;
  /** The routes every runtime serves (the first's). */
  routes(): WebAppHandler["routes"];
  auth: { botToken: string; maxAgeSeconds: number; now: () => number };
}

function namedIn(request: IncomingMessage, url: URL): string | undefined {
  if (url.pathname.startsWith(FILE_PREFIX)) {
    return merchantOfFileLink(url) ?? undefined;
  }
  if (!url.pathname.startsWith(API_PREFIX)) return undefined;
  const header = request.headers[MERCHANT_HEADER];
  return typeof header === "string" ? header : undefined;
}

/** `merchant` as its Mini App names it to a person who works for `mine` (ids, the file's order). */
export function choiceOf(
  merchant: MerchantChoice,
  mine: readonly string[],
  named: (id: string) => MerchantChoice | undefined,
): WebAppMerchant {
  const choices = mine.flatMap((id) => {
    const other = named(id);
    return other ? [{ id, name: other.name }] : [];
  });
  return { id: merchant.id, name: merchant.name, mine: choices };
}

/** One Mini App for every merchant, each request answered by its merchant's runtime. */
export function merchantsWebApp(options: MerchantsWebAppOptions): WebAppHandler {
  return {
    get routes() {
      return options.routes();
    },
    async handle(request, response, url, readBody) {
      const named = namedIn(request, url);
      if (named === undefined) {
        const handler = await options.current(uncheckedUserIdOf(request.headers.authorization));
        return handler?.handle(request, response, url, readBody) ?? false;
      }
      const handler = options.byId(named);
      if (handler) return handler.handle(request, response, url, readBody);
      if (url.pathname.startsWith(FILE_PREFIX)) {
        // A signed link of a merchant removed since: nothing to serve.
        writeReply(response, { status: 404, json: { error: "not_found" } });
        return true;
      }
      // No such merchant: answered as a runtime answers someone who is not its staff.
      const auth = await authenticateWebApp(request.headers.authorization, {
        ...options.auth,
        staff: { roleOf: async () => null, savedLocale: async () => null },
      });
      writeReply(
        response,
        auth.outcome === "unauthorized"
          ? { status: 401, json: { error: "unauthorized", reason: auth.reason } }
          : { status: 403, json: { error: "forbidden", reason: "not_staff" } },
      );
      return true;
    },
  };
}
