/**
 * The audit log on a Redis stream: append-only, ordered by the time Redis wrote each entry,
 * trimmed to the retention. A payout's moves are appended by the payout scripts themselves
 * (lua/payout-*.lua), in the same atomic step as the move.
 */
import { z } from "zod";
import { type Logger, silentLogger } from "../../logger.js";
import type { AuditDraft, AuditEntry } from "../../model/audit.js";
import { auditMinId, decodeAuditEntry, draftJson } from "../audit-codec.js";
import type { AuditLog, AuditPage } from "../types.js";
import type { RedisClient } from "./connection.js";

const StreamReplySchema = z.array(z.tuple([z.string(), z.array(z.string())]));
/** The largest sequence number of a stream id. */
const MAX_SEQUENCE = "18446744073709551615";

export interface RedisAuditLogOptions {
  key: string;
  retentionMs: number;
  logger?: Logger;
  now?: () => number;
}

export class RedisAuditLog implements AuditLog {
  readonly #redis: RedisClient;
  readonly #options: Required<RedisAuditLogOptions>;

  constructor(redis: RedisClient, options: RedisAuditLogOptions) {
    this.#redis = redis;
    this.#options = { logger: silentLogger, now: Date.now, ...options };
  }

  async record(draft: AuditDraft): Promise<void> {
    const { key, retentionMs, now } = this.#options;
    const minId = auditMinId(now(), retentionMs);
    await this.#redis.xadd(key, "MINID", "~", minId, "*", "e", draftJson(draft));
  }

  async page(options: { limit: number; before?: string }): Promise<AuditPage> {
    if (options.limit <= 0) return { entries: [] };
    const end = options.before === undefined ? "+" : `(${options.before}`;
    const reply = await this.#redis.xrevrange(this.#options.key, end, "-", "COUNT", options.limit);
    return this.#page(reply, options.limit);
  }

  async range(options: {
    fromMs: number;
    toMs: number;
    limit: number;
    after?: string;
  }): Promise<AuditPage> {
    if (options.limit <= 0) return { entries: [] };
    const start = options.after === undefined ? `${options.fromMs}-0` : `(${options.after}`;
    const end = `${options.toMs}-${MAX_SEQUENCE}`;
    const reply = await this.#redis.xrange(this.#options.key, start, end, "COUNT", options.limit);
    return this.#page(reply, options.limit);
  }

  async recent(limit: number): Promise<AuditEntry[]> {
    return (await this.page({ limit })).entries;
  }

  /** Entries that do not read are logged and left out; `next` follows a full page. */
  #page(reply: unknown, limit: number): AuditPage {
    const raw = StreamReplySchema.parse(reply);
    const entries: AuditEntry[] = [];
    for (const [id, fields] of raw) {
      const entry = decodeAuditEntry(id, fields);
      if (entry) entries.push(entry);
      else this.#options.logger.error({ entryId: id }, "stored audit entry is not valid; left out");
    }
    const last = raw.at(-1)?.[0];
    return raw.length === limit && last !== undefined ? { entries, next: last } : { entries };
  }
}
