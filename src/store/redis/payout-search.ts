/**
 * The history search's reads on Redis (PayoutStore.findByWords and listByStatus), each one
 * script and one round trip that answers the records with the ids: the index of words
 * (lua/payouts-by-words.lua) and the status group indexes (lua/payouts-by-status.lua), both
 * written by payout-create.lua and the latter moved by payout-transition.lua.
 */
import { z } from "zod";
import type { Payout } from "../../model/payout.js";
import {
  MAX_SEARCH_WORDS,
  MAX_WORD_LENGTH,
  searchWordsOf,
  wordsMatch,
} from "../../model/search.js";
import type { Keys } from "../keys.js";
import { pairsToRecord } from "../payout-codec.js";
import type { StatusListOptions, WordMatches, WordQuery } from "../types.js";
import type { RedisClient } from "./connection.js";
import { statusGroupArgs } from "./payout-move-args.js";
import { runScript, SCRIPTS } from "./scripts.js";

/**
 * Indexed words one word looked for may widen to (`ngo` → `ngono`, `ngoa`, …); beyond it
 * the word is too broad for the index and only checked on the records read.
 */
export const MAX_WIDENED_WORDS = 500;
/** Entries the indexes of those words may hold together (a union is built of them). */
export const MAX_WIDENED_ENTRIES = 20_000;
/** Words looked for at most: the others are only checked on the records read. */
const MAX_QUERY_WORDS = 8;

/** {count, id, HGETALL, id, HGETALL, …} */
const CountedRecordsSchema = z.tuple([z.number()]).rest(z.union([z.string(), z.array(z.string())]));
const ByWordsReplySchema = z.union([
  z.tuple([z.literal("too_broad")]),
  z
    .tuple([z.literal("found"), z.number(), z.number()])
    .rest(z.union([z.string(), z.array(z.string())])),
]);

type Decode = (id: string, hash: Readonly<Record<string, string>>) => Payout;

export interface RedisPayoutSearchOptions {
  keys: Keys;
  retentionMs: number;
  now: () => number;
  /** Reads a record as the payout store does (a corrupt one is reported and thrown). */
  decode: Decode;
}

export class RedisPayoutSearch {
  readonly #redis: RedisClient;
  readonly #options: RedisPayoutSearchOptions;

  constructor(redis: RedisClient, options: RedisPayoutSearchOptions) {
    this.#redis = redis;
    this.#options = options;
  }

  async findByWords(query: WordQuery): Promise<WordMatches> {
    const k = this.#options.keys;
    const words = [...new Set(query.words)];
    if (words.length === 0 || query.limit <= 0) return { outcome: "too_broad" };
    const looked = words.slice(0, MAX_QUERY_WORDS);
    const reply = ByWordsReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["payouts-by-words"],
        [
          k.searchVocabulary(),
          k.searchScratch("and"),
          ...looked.map((_, index) => k.searchScratch(String(index))),
        ],
        [
          JSON.stringify({
            words: looked,
            wordPrefix: k.searchWord(""),
            fromMs: String(query.fromMs),
            toMs: String(query.toMs),
            offset: String(query.offset ?? 0),
            limit: String(query.limit),
            maxWords: String(MAX_WIDENED_WORDS),
            maxEntries: String(MAX_WIDENED_ENTRIES),
            payoutPrefix: k.payout(""),
          }),
        ],
      ),
    );
    if (reply[0] === "too_broad") return { outcome: "too_broad" };
    const [, total, answered, ...flat] = reply;
    // The index left out the words too broad to widen: every record is checked on all.
    const items = this.#records(flat).filter((payout) => wordsMatch(searchWordsOf(payout), words));
    const complete = total <= (query.offset ?? 0) + query.limit;
    const exact = answered === 1 && looked.length === words.length;
    return { outcome: "found", items, complete, exact, total };
  }

  async listByStatus(options: StatusListOptions): Promise<{ items: Payout[]; total: number }> {
    const k = this.#options.keys;
    const reply = CountedRecordsSchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["payouts-by-status"],
        [k.statusPayouts(options.status, options.userId)],
        [
          this.#options.now() - this.#options.retentionMs,
          options.fromMs,
          options.toMs,
          options.offset,
          Math.max(0, options.limit),
          k.payout(""),
        ],
      ),
    );
    const [total, ...flat] = reply;
    return { items: options.limit <= 0 ? [] : this.#records(flat), total };
  }

  /** {id, HGETALL, id, HGETALL, …} read as payouts. */
  #records(flat: ReadonlyArray<string | string[]>): Payout[] {
    const payouts: Payout[] = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const id = flat[index];
      const fields = flat[index + 1];
      if (typeof id === "string" && Array.isArray(fields)) {
        payouts.push(this.#options.decode(id, pairsToRecord(fields)));
      }
    }
    return payouts;
  }
}

/**
 * Payouts indexed per script call by `indexStoredPayouts`: about 2 ms a call, round
 * trip included (median; 3.7 ms for 50), measured with 10,000 payouts: no call holds Redis
 * up for long.
 */
const BACKFILL_PAGE = 25;

/** {next cursor, indexed, then id, name, note, alias of each payout left to the client} */
const SearchBackfillReplySchema = z.tuple([z.string(), z.number()]).rest(z.string());

/** A text field of a stored payout hash (JSON-encoded), or "" when absent or unreadable. */
function storedText(raw: string): string {
  try {
    const value: unknown = JSON.parse(raw === "" ? '""' : raw);
    return typeof value === "string" ? value : "";
  } catch {
    return "";
  }
}

/**
 * Writes the search indexes (words, status groups) of the payouts stored before they
 * existed, oldest first, page by page, then marks it done so that later starts skip it.
 * Each page is walked and indexed inside Redis (lua/payouts-search-backfill.lua), so this
 * process holds nothing per payout; only a payout whose texts are not plain ASCII comes
 * back, to be folded here (String.normalize has no Lua equivalent) and indexed by
 * lua/payouts-index-search.lua. Idempotent: two replicas starting together both run it and
 * write the same entries; a payout created or moved meanwhile is indexed by its own step.
 * Answers how many payouts it indexed (0 when it was done before).
 */
export async function indexStoredPayouts(
  redis: RedisClient,
  options: { keys: Keys; retentionMs: number; now: () => number; pageSize?: number },
): Promise<number> {
  const k = options.keys;
  if ((await redis.exists(k.searchIndexed())) === 1) return 0;
  const nowMs = options.now();
  const common = {
    payoutPrefix: k.payout(""),
    wordPrefix: k.searchWord(""),
    cutoffMs: String(nowMs - options.retentionMs),
    retentionMs: String(options.retentionMs),
    ...statusGroupArgs(k),
  };
  const vocabulary = [k.searchVocabulary(), k.searchVocabularySeen()];
  let indexed = 0;
  let cursor = "";
  do {
    const [next, done, ...left] = SearchBackfillReplySchema.parse(
      await runScript(
        redis,
        SCRIPTS["payouts-search-backfill"],
        [k.allPayouts(), ...vocabulary],
        [
          JSON.stringify({
            ...common,
            cursor,
            toMs: String(nowMs),
            limit: String(options.pageSize ?? BACKFILL_PAGE),
            maxWords: String(MAX_SEARCH_WORDS),
            maxWordLength: String(MAX_WORD_LENGTH),
          }),
        ],
      ),
    );
    indexed += done;
    const payouts: Array<{ id: string; words: string[] }> = [];
    for (let index = 0; index + 3 < left.length; index += 4) {
      const [id = "", name = "", note = "", alias = ""] = left.slice(index, index + 4);
      const texts = { recipientName: storedText(name), note: storedText(note) };
      payouts.push({ id, words: searchWordsOf({ ...texts, recipientAlias: storedText(alias) }) });
    }
    if (payouts.length > 0) {
      const reply = await runScript(redis, SCRIPTS["payouts-index-search"], vocabulary, [
        JSON.stringify({ ...common, payouts }),
      ]);
      indexed += z.number().parse(reply);
    }
    cursor = next;
  } while (cursor !== "");
  await redis.set(k.searchIndexed(), String(nowMs));
  return indexed;
}
