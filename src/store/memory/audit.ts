import { type AuditDraft, type AuditEntry, AuditEntrySchema } from "../../model/audit.js";
import { checkInput } from "../schemas.js";
import type { AuditLog, AuditPage } from "../types.js";

/**
 * The audit log in memory: entries in the order they were written, with ids like a Redis
 * stream's (`<ms>-<sequence>`, on the injected clock), trimmed to the retention.
 */
export class MemoryAuditLog implements AuditLog {
  /** Oldest first. */
  readonly #entries: AuditEntry[] = [];
  readonly #now: () => number;
  readonly #retentionMs: number;
  #lastMs = 0;
  #sequence = 0;

  constructor(now: () => number, retentionMs: number) {
    this.#now = now;
    this.#retentionMs = retentionMs;
  }

  async record(draft: AuditDraft): Promise<void> {
    this.append(checkInput(AuditEntrySchema, draft, "audit entry"));
  }

  /** Appends an entry (the payout store's moves come here too, in the move's own step). */
  append(entry: Omit<AuditEntry, "id">): void {
    const nowMs = Math.max(this.#now(), this.#lastMs);
    this.#sequence = nowMs === this.#lastMs ? this.#sequence + 1 : 0;
    this.#lastMs = nowMs;
    this.#entries.push({ ...structuredClone(entry), id: `${nowMs}-${this.#sequence}` });
    const oldest = nowMs - this.#retentionMs;
    while ((this.#entries[0] && msOf(this.#entries[0]) < oldest) === true) this.#entries.shift();
  }

  async page(options: { limit: number; before?: string }): Promise<AuditPage> {
    const before = options.before;
    const older = this.#entries.filter(
      (entry) => before === undefined || compareIds(entry, before) < 0,
    );
    return pageOf(older.reverse(), options.limit);
  }

  async range(options: {
    fromMs: number;
    toMs: number;
    limit: number;
    after?: string;
  }): Promise<AuditPage> {
    const { fromMs, toMs, after } = options;
    const inRange = this.#entries.filter(
      (entry) =>
        msOf(entry) >= fromMs &&
        msOf(entry) <= toMs &&
        (after === undefined || compareIds(entry, after) > 0),
    );
    return pageOf(inRange, options.limit);
  }

  async recent(limit: number): Promise<AuditEntry[]> {
    return (await this.page({ limit })).entries;
  }
}

/** The milliseconds part of an entry's id. */
function msOf(entry: AuditEntry): number {
  return Number((entry.id ?? "0-0").split("-")[0]);
}

/** Orders an entry against an id, as stream ids order. */
function compareIds(entry: AuditEntry, id: string): number {
  const [ms = 0, sequence = 0] = (entry.id ?? "0-0").split("-").map(Number);
  const [otherMs = 0, otherSequence = 0] = id.split("-").map(Number);
  return ms - otherMs || sequence - otherSequence;
}

function pageOf(entries: AuditEntry[], limit: number): AuditPage {
  if (limit <= 0) return { entries: [] };
  const page = structuredClone(entries.slice(0, limit));
  const last = page.at(-1)?.id;
  return page.length === limit && last !== undefined
    ? { entries: page, next: last }
    : { entries: page };
}
