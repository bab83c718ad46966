/**
 * A creation index (a sorted set scored by createdAtMs) read page by page, oldest first, with
 * a `{score}:{id}` cursor: exports and the digest walk it without ever holding all of it.
 */
import { z } from "zod";
import type { RedisClient } from "./connection.js";
import { replyAt } from "./reply.js";

/** ZRANGEBYSCORE … WITHSCORES: member, score, member, score… */
const WithScoresSchema = z.array(z.string()).refine((reply) => reply.length % 2 === 0);

interface IndexEntry {
  id: string;
  score: number;
}

function entriesOf(reply: unknown): IndexEntry[] {
  const flat = WithScoresSchema.parse(reply);
  const entries: IndexEntry[] = [];
  for (let index = 0; index < flat.length; index += 2) {
    entries.push({ id: flat[index] ?? "", score: Number(flat[index + 1]) });
  }
  return entries;
}

/** `{score}:{id}`: where a page of the index ended (payout ids hold no ":"). */
function cursorOf(entry: IndexEntry): string {
  return `${entry.score}:${entry.id}`;
}

function parseCursor(cursor: string): IndexEntry | undefined {
  const match = /^(\d+):([\w-]+)$/.exec(cursor);
  return match?.[1] && match[2] ? { score: Number(match[1]), id: match[2] } : undefined;
}

/**
 * One page of the creation index `index` (score: createdAtMs), oldest first: up to
 * `limit` ids created from `fromMs` to `toMs`, after `after` (a `next` this gave). Ties
 * (payouts created in the same millisecond) are ordered by id, as Redis orders them, so a
 * page boundary between two of them loses neither.
 */
export async function createdPage(
  redis: RedisClient,
  index: string,
  options: { fromMs: number; toMs: number; limit: number; after?: string },
): Promise<{ ids: string[]; next?: string }> {
  const { fromMs, toMs, limit } = options;
  const cursor = options.after === undefined ? undefined : parseCursor(options.after);
  let entries: IndexEntry[];
  if (!cursor) {
    entries = entriesOf(
      await redis.zrangebyscore(index, fromMs, toMs, "WITHSCORES", "LIMIT", 0, limit),
    );
  } else {
    const replies = await redis
      .pipeline()
      .zrangebyscore(index, cursor.score, cursor.score, "WITHSCORES")
      .zrangebyscore(index, `(${cursor.score}`, toMs, "WITHSCORES", "LIMIT", 0, limit)
      .exec();
    const ties = entriesOf(replyAt(replies, 0)).filter((entry) => entry.id > cursor.id);
    entries = [...ties, ...entriesOf(replyAt(replies, 1))].slice(0, limit);
  }
  const ids = entries.map((entry) => entry.id);
  const last = entries.at(-1);
  return entries.length === limit && last ? { ids, next: cursorOf(last) } : { ids };
}
