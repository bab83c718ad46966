/**
 * The Mini App's Saved recipients page: the address book searched by alias or registered
 * name (the words of /recipients), a page at a time, each entry with its number masked as the bot's lists mask it (`67• •• •0 01`) and
 * when it was last paid; and Forget through the very step /forget calls
 * (payouts/recipients.ts `forget`: its saver while they may pay, or an admin; audited).
 *
 * - GET  `recipients?q=&page=` → 200 `{ items, total, page, pageSize, names }`, each item
 *   with `mayForget` (the policy's answer for the caller: the page offers Forget only then).
 * - POST `recipients/:alias/forget` → 200 `{ outcome: "forgotten" }` | 400 `bad_alias` |
 *   403 `forbidden` | 404 `not_found` (unknown, or forgotten already) | 409 `changed`.
 */
import { z } from "zod";
import { maskedPhone } from "../../model/phone.js";
import type { ListedRecipient } from "../../model/recipient.js";
import type { Asker } from "../../payouts/policy.js";
import { type ForgetResult, mayChange as mayForget } from "../../payouts/recipients.js";
import { askerOf } from "./auth.js";
import { failure, type WebAppRoute } from "./routes.js";

type Member = NonNullable<Asker>;

/** Entries on one page. */
export const RECIPIENTS_PAGE_SIZE = 20;

/** Search words kept, as /recipients keeps them. */
const MAX_SEARCH_WORDS = 10;

export interface RecipientSteps {
  /** The entries whose alias or registered name holds every word, sorted by alias. */
  list(words: readonly string[]): Promise<ListedRecipient[]>;
  forget(alias: string, asker: Member): Promise<ForgetResult>;
  names(userIds: readonly number[]): Promise<Map<number, string>>;
}

const Query = z.object({
  q: z.string().max(200).default(""),
  page: z.coerce.number().int().min(0).max(10_000).default(0),
});

export function recipientRoutes(steps: RecipientSteps): WebAppRoute[] {
  return [
    {
      method: "GET",
      path: "recipients",
      capability: "read",
      async handle({ user, query }) {
        const parsed = Query.safeParse({
          q: query.get("q") ?? undefined,
          page: query.get("page") || undefined,
        });
        if (!parsed.success) return failure(400, "bad_query");
        const words = parsed.data.q
          .split(/\s+/)
          .filter((word) => word !== "")
          .slice(0, MAX_SEARCH_WORDS)
          .map((word) => word.slice(0, 64));
        const all = await steps.list(words);
        const pages = Math.max(1, Math.ceil(all.length / RECIPIENTS_PAGE_SIZE));
        const page = Math.min(parsed.data.page, pages - 1);
        const shown = all.slice(page * RECIPIENTS_PAGE_SIZE, (page + 1) * RECIPIENTS_PAGE_SIZE);
        const asker = askerOf(user);
        const savers = [...new Set(shown.map((entry) => entry.savedBy))];
        return {
          status: 200,
          json: {
            items: shown.map((entry) => ({
              alias: entry.alias,
              registeredName: entry.registeredName,
              phone: maskedPhone(entry.phone),
              operator: entry.operator,
              savedBy: entry.savedBy,
              savedAtMs: entry.savedAtMs,
              lastPaidAtMs: entry.lastPaidAtMs,
              mayForget: mayForget(asker, entry),
            })),
            total: all.length,
            page,
            pageSize: RECIPIENTS_PAGE_SIZE,
            names: Object.fromEntries(await steps.names(savers)),
          },
        };
      },
    },
    {
      method: "POST",
      path: "recipients/:alias/forget",
      // The step decides who may (the saver while they may pay, or an admin).
      capability: "read",
      async handle({ user, params }) {
        const result = await steps.forget(params.alias ?? "", askerOf(user));
        switch (result.outcome) {
          case "forgotten":
            return { status: 200, json: { outcome: "forgotten", alias: result.recipient.alias } };
          case "bad_alias":
            return failure(400, "bad_alias");
          case "unknown_alias":
            return failure(404, "not_found");
          case "forbidden":
            return failure(403, "forbidden");
          case "changed":
            return failure(409, "changed");
        }
      },
    },
  ];
}
