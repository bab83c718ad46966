/**
 * The Mini App's History: one search box (a number, a payment or payout id, a staff member
 * by id, a staff member's first name and words of the recipient's name, the note or the alias
 * both at once), filters by
 * status, kind, operator, amount and dates, and pages. Each kind of query goes to the index that answers it:
 * the number index (`listByPhone`), the payment id index, a person's own list, a status
 * group's index (everyone's or a person's: `listByStatus`), the index of words
 * (`findByWords`). Only what no index answers (no search and no status, but a kind or dates;
 * a word of one or two letters that begins too many words) reads the period's payouts page
 * by page, at most `SCAN_LIMIT` of them, and says so. A search over 100,000 payouts stays one
 * or two Redis round trips.
 */
import { setImmediate as yieldToOthers } from "node:timers/promises";
import { z } from "zod";
import type { Payout } from "../../model/payout.js";
import { parsePhone } from "../../model/phone.js";
import {
  STATUS_GROUPS,
  type StatusGroup,
  searchWordsOf,
  statusGroupOf,
  wordsMatch,
  wordsOf,
} from "../../model/search.js";
import type { Stores } from "../../store/types.js";
import { daysWindow, parseDay } from "../../time.js";
import { type Asker, may, maySee } from "../policy.js";

export const HISTORY_PAGE_SIZE = 20;
/** Payouts read at most for a search that no index answers (a name). */
export const SCAN_LIMIT = 5_000;
/**
 * Payouts taken at most from one index (one number, one person) when other filters apply:
 * the newest ones. A person's payouts with no other filter are paged from their own list.
 */
const INDEX_LIMIT = 300;
const PAGE = 500;
/** A search without dates covers this many days back. */
export const DEFAULT_SEARCH_DAYS = 90;

export const STATUS_FILTERS = STATUS_GROUPS;
export type StatusFilter = StatusGroup;

/** How a payout's state reads in the filters (and the page's badges). */
export const statusFilterOf = statusGroupOf;

const DayText = z
  .string()
  .max(10)
  .refine((text) => parseDay(text) !== undefined, "a day as YYYY-MM-DD");

/** The query string of a history request (and of its CSV export). */
export const HistoryQuerySchema = z.object({
  q: z.string().trim().max(100).optional(),
  status: z.enum(STATUS_FILTERS).optional(),
  kind: z.enum(["disbursement", "collection"]).optional(),
  /** Added for the page's operator chip: filters as `kind` does (no index of its own). */
  operator: z.enum(["mtn", "orange"]).optional(),
  /** An exact amount in XAF (the page's box with `5000 FCFA`): filters as `kind` does. */
  amount: z.coerce.number().int().positive().max(1_000_000_000).optional(),
  from: DayText.optional(),
  to: DayText.optional(),
  page: z.coerce.number().int().min(0).max(10_000).default(0),
});
export type HistoryQuery = z.infer<typeof HistoryQuerySchema>;

export interface HistoryPage {
  items: Payout[];
  total: number;
  page: number;
  pageSize: number;
  /** What answered the search: which index, or a scan of the period. */
  via: "latest" | "number" | "id" | "staff" | "status" | "words" | "scan";
  /**
   * Older payouts of the period were not searched: a scan stopped at SCAN_LIMIT, or an
   * index held more than was read.
   */
  partial: boolean;
}

export interface HistoryDeps {
  stores: Stores;
  timeZone: string;
  now: () => number;
}

/** `page`: the items are that one page already, of `total` (a search by words, paged). */
type Found = {
  items: Payout[];
  via: HistoryPage["via"];
  partial: boolean;
  page?: { total: number };
};

function windowOf(query: HistoryQuery, deps: HistoryDeps): { fromMs: number; toMs: number } {
  const nowMs = deps.now();
  const to = query.to ?? undefined;
  const from = query.from ?? undefined;
  if (from === undefined && to === undefined) {
    return { fromMs: nowMs - DEFAULT_SEARCH_DAYS * 86_400_000, toMs: nowMs };
  }
  const window = daysWindow(from ?? "2000-01-01", to ?? "2999-12-31", deps.timeZone);
  return { fromMs: window.fromMs, toMs: Math.min(window.toMs, nowMs) };
}

function passesFilters(
  payout: Payout,
  query: HistoryQuery,
  window: { fromMs: number; toMs: number },
) {
  if (query.status !== undefined && statusFilterOf(payout.state) !== query.status) return false;
  if (query.kind !== undefined && payout.kind !== query.kind) return false;
  if (query.operator !== undefined && payout.operator !== query.operator) return false;
  if (query.amount !== undefined && payout.amount !== query.amount) return false;
  return payout.createdAtMs >= window.fromMs && payout.createdAtMs <= window.toMs;
}

async function staffMatching(stores: Stores, text: string): Promise<number[]> {
  if (/^\d{1,15}$/.test(text)) return [Number(text)];
  const staff = await stores.staff.list();
  const profiles = await stores.profiles.getMany(staff.map((member) => member.userId));
  const wanted = text.toLowerCase().replace(/^@/, "");
  return staff
    .filter((member) => {
      const profile = profiles.get(member.userId);
      return (
        profile !== undefined &&
        (profile.firstName.toLowerCase().includes(wanted) ||
          profile.username?.toLowerCase() === wanted)
      );
    })
    .map((member) => member.userId);
}

/** The payouts of the period whose recipient name or note holds `text`, newest first. */
async function scan(
  stores: Stores,
  window: { fromMs: number; toMs: number },
  keep: (payout: Payout) => boolean,
): Promise<{ items: Payout[]; partial: boolean }> {
  const items: Payout[] = [];
  let read = 0;
  let after: string | undefined;
  do {
    const page = await stores.payouts.listCreated({
      ...window,
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    read += page.items.length;
    items.push(...page.items.filter(keep));
    after = page.next;
    if (read >= SCAN_LIMIT && after !== undefined) {
      return { items: items.reverse(), partial: true };
    }
    if (after !== undefined) await yieldToOthers();
  } while (after !== undefined);
  return { items: items.reverse(), partial: false };
}

/** Everything that matches `query` for `asker` (newest first), before paging. */
export async function searchHistory(
  deps: HistoryDeps,
  asker: NonNullable<Asker>,
  query: HistoryQuery,
  /** Given, a search by words with nothing else to filter answers only this page. */
  paging?: { offset: number; limit: number },
): Promise<Found> {
  const { stores } = deps;
  const window = windowOf(query, deps);
  const visible = (payout: Payout) => maySee(asker, payout) && passesFilters(payout, query, window);
  const text = query.q ?? "";
  if (text === "" && query.status !== undefined) {
    // The status group's index, 500 at a time (Redis is not held up), at most SCAN_LIMIT.
    const own = may(asker, "see_everyone") ? {} : { userId: asker.userId };
    const status = query.status;
    const items = new Map<string, Payout>();
    let total = 0;
    for (let offset = 0; offset < SCAN_LIMIT && offset <= total; offset += PAGE) {
      const list = await stores.payouts.listByStatus({
        ...own,
        status,
        ...window,
        offset,
        limit: PAGE,
      });
      for (const payout of list.items) if (visible(payout)) items.set(payout.id, payout);
      total = list.total;
      await yieldToOthers();
    }
    return { items: [...items.values()], via: "status", partial: total > SCAN_LIMIT };
  }
  if (text === "") {
    const found = await scan(stores, window, visible);
    return { ...found, via: "scan" };
  }
  const phone = parsePhone(text);
  if (phone.ok) {
    const items = await stores.payouts.listByPhone(phone.phone, {
      sinceMs: window.fromMs,
      offset: 0,
      limit: INDEX_LIMIT,
    });
    return { items: items.filter(visible), via: "number", partial: items.length >= INDEX_LIMIT };
  }
  if (/^[\w-]{6,100}$/.test(text) && !/^\d+$/.test(text)) {
    const [byPayment, byId] = await Promise.all([
      stores.payouts.findByPaymentId(text),
      stores.payouts.get(text),
    ]);
    const items = [byPayment, byId].filter((payout): payout is Payout => payout !== null);
    if (items.length > 0) {
      const unique = items.filter(
        (payout, index) => items.findIndex((o) => o.id === payout.id) === index,
      );
      return { items: unique.filter(visible), via: "id", partial: false };
    }
  }
  const people = await staffMatching(stores, text);
  const byStaff = people.length > 0 ? await staffPayouts(stores, people, query, window) : null;
  if (byStaff !== null && /^\d+$/.test(text)) {
    return { items: byStaff.items.filter(visible), via: "staff", partial: byStaff.partial };
  }
  const byName = await byWordsOf(
    deps,
    asker,
    query,
    text,
    window,
    visible,
    byStaff ? undefined : paging,
  );
  if (byStaff === null) return byName;
  // One word is a staff member's first name and a recipient's both: both answer, newest first.
  const items = new Map<string, Payout>();
  for (const payout of [...byStaff.items.filter(visible), ...byName.items]) {
    items.set(payout.id, payout);
  }
  return {
    items: [...items.values()].sort((a, b) => b.createdAtMs - a.createdAtMs),
    via: "staff",
    partial: byStaff.partial || byName.partial,
  };
}

/** The payouts `people` made (of the status asked, if any), before any other filter. */
async function staffPayouts(
  stores: Stores,
  people: number[],
  query: HistoryQuery,
  window: { fromMs: number; toMs: number },
): Promise<{ items: Payout[]; partial: boolean }> {
  const status = query.status;
  const lists = await Promise.all(
    people.map((userId) =>
      status === undefined
        ? stores.payouts.list({ userId, offset: 0, limit: INDEX_LIMIT })
        : stores.payouts.listByStatus({
            userId,
            status,
            ...window,
            offset: 0,
            limit: INDEX_LIMIT,
          }),
    ),
  );
  return {
    items: lists.flatMap((list) => list.items),
    partial: lists.some((list) => list.total > INDEX_LIMIT),
  };
}

/** The payouts whose recipient's name, note or alias holds every word of `text`. */
async function byWordsOf(
  deps: HistoryDeps,
  asker: NonNullable<Asker>,
  query: HistoryQuery,
  text: string,
  window: { fromMs: number; toMs: number },
  visible: (payout: Payout) => boolean,
  paging?: { offset: number; limit: number },
): Promise<Found> {
  const { stores } = deps;
  const words = wordsOf(text);
  if (words.length === 0) return { items: [], via: "words", partial: false };
  if (
    paging &&
    query.status === undefined &&
    query.kind === undefined &&
    query.operator === undefined &&
    query.amount === undefined &&
    may(asker, "see_everyone")
  ) {
    // Nothing to filter: when the index answers every word, one page of it is the answer.
    const page = await stores.payouts.findByWords({ words, ...window, ...paging });
    if (page.outcome === "found" && page.exact) {
      return { items: page.items, via: "words", partial: false, page: { total: page.total } };
    }
  }
  const byWords = await stores.payouts.findByWords({ words, ...window, limit: INDEX_LIMIT });
  if (byWords.outcome === "found") {
    // Every match of the period was read unless `complete` is false: the filters are exact.
    return { items: byWords.items.filter(visible), via: "words", partial: !byWords.complete };
  }
  // Too broad for the index (a letter or two that begins too many words): the period read.
  const found = await scan(
    stores,
    window,
    (payout) => visible(payout) && wordsMatch(searchWordsOf(payout), words),
  );
  return { ...found, via: "scan" };
}

/** One page read straight from an index: its items, and the total the index counts. */
function indexPage(
  list: { items: Payout[]; total: number },
  query: HistoryQuery,
  via: HistoryPage["via"],
): HistoryPage {
  const { items, total } = list;
  return { items, total, page: query.page, pageSize: HISTORY_PAGE_SIZE, via, partial: false };
}

/** One page of what matches `query` for `asker`. */
export async function historyPage(
  deps: HistoryDeps,
  asker: NonNullable<Asker>,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const text = query.q ?? "";
  const { payouts } = deps.stores;
  const paging = { offset: query.page * HISTORY_PAGE_SIZE, limit: HISTORY_PAGE_SIZE };
  const everyone = may(asker, "see_everyone");
  const own = everyone ? {} : { userId: asker.userId };
  const undated = query.from === undefined && query.to === undefined;
  // Kind, operator and amount have no index of their own: a query with one is filtered.
  const byFilterOnly =
    query.kind !== undefined || query.operator !== undefined || query.amount !== undefined;
  const unfiltered = query.status === undefined && !byFilterOnly && undated;
  // A staff member's id (not a number): their own lists answer it.
  const staffId = everyone && /^\d{1,15}$/.test(text) && !parsePhone(text).ok;
  if (text === "" && unfiltered) {
    // Nothing to filter: the newest first, straight from the creation index.
    return indexPage(await payouts.list({ ...own, ...paging }), query, "latest");
  }
  if (staffId && unfiltered) {
    return indexPage(await payouts.list({ userId: Number(text), ...paging }), query, "staff");
  }
  if (query.status !== undefined && !byFilterOnly && (text === "" || staffId)) {
    // A status (and perhaps a staff member's id), dates or not: one page of the status
    // group's index, everyone's, the asker's own, or that member's.
    const list = await payouts.listByStatus({
      ...(text === "" ? own : { userId: Number(text) }),
      status: query.status,
      ...windowOf(query, deps),
      ...paging,
    });
    return indexPage(list, query, text === "" ? "status" : "staff");
  }
  const found = await searchHistory(deps, asker, query, paging);
  if (found.page)
    return indexPage({ items: found.items, total: found.page.total }, query, found.via);
  const start = query.page * HISTORY_PAGE_SIZE;
  return {
    items: found.items.slice(start, start + HISTORY_PAGE_SIZE),
    total: found.items.length,
    page: query.page,
    pageSize: HISTORY_PAGE_SIZE,
    via: found.via,
    partial: found.partial,
  };
}
