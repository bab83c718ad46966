/**
 * Audit entries → the events to queue: which entries the business hears of (model/
 * events.ts), and each one's body from the payout or batch as it is when queued, with the
 * status the change left it in. A payout or batch gone past the retention has nothing left
 * to say: its entries are logged and skipped.
 */
import type { Logger } from "../logger.js";
import type { AuditEntry } from "../model/audit.js";
import {
  batchEventData,
  type EventSource,
  eventBody,
  eventIdOf,
  eventSourceOf,
  mayBeEvent,
  payoutEventData,
} from "../model/events.js";
import type { EventDraft } from "../store/redis-events.js";
import type { Stores } from "../store/types.js";

/** The events of `entries`, in their order. */
export async function eventDrafts(
  entries: readonly AuditEntry[],
  stores: Pick<Stores, "payouts" | "batches">,
  logger: Logger,
): Promise<EventDraft[]> {
  const drafts: EventDraft[] = [];
  for (const entry of entries) {
    if (entry.id === undefined || !mayBeEvent(entry.action)) continue;
    const draft = await eventDraft(entry, entry.id, stores, logger);
    if (draft) drafts.push(draft);
  }
  return drafts;
}

async function eventDraft(
  entry: AuditEntry,
  entryId: string,
  stores: Pick<Stores, "payouts" | "batches">,
  logger: Logger,
): Promise<EventDraft | null> {
  if (entry.payoutId !== undefined) {
    const payout = await stores.payouts.get(entry.payoutId);
    if (!payout) return gone(entry, logger);
    const source = eventSourceOf(entry, payout.kind);
    if (!source) return null;
    // The status the change left it in (the record may have moved on since).
    const status = entry.to ?? (entry.action === "submit" ? "submitting" : payout.state);
    return draftOf(source, entry, entryId, { ...payoutEventData(payout), status }, payout.id);
  }
  if (entry.batchId !== undefined) {
    const source = eventSourceOf(entry, undefined);
    if (!source) return null;
    const batch = await stores.batches.get(entry.batchId);
    if (!batch) return gone(entry, logger);
    return draftOf(source, entry, entryId, batchEventData(batch), `batch:${batch.id}`);
  }
  return null;
}

function gone(entry: AuditEntry, logger: Logger): null {
  logger.warn({ entryId: entry.id, action: entry.action }, "event subject gone; not sent");
  return null;
}

function draftOf(
  source: EventSource,
  entry: AuditEntry,
  entryId: string,
  data: Record<string, unknown>,
  subject: string,
): EventDraft {
  return {
    id: eventIdOf(entryId),
    subject,
    createdMs: entry.atMs,
    body: eventBody(source.type, entry, data),
  };
}
