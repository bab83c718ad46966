/**
 * Audit entries → the events to queue: which entries the business hears of (model/
 * events.ts), and each one's body from the payout or batch as it is when queued, with the
 * status the change left it in. A payout or batch gone past the retention has nothing left
 * to say: its entries are logged and skipped.
 */
import type { Logger } from "../../logger.js";
import type { AuditEntry } from "../../model/audit.js";
import type { Batch } from "../../model/batch.js";
import {
  availabilityEventData,
  batchEventData,
  type EventSource,
  eventBody,
  eventIdOf,
  eventSourceOf,
  mayBeEvent,
  payoutEventData,
} from "../../model/events.js";
import type { Payout } from "../../model/payout.js";
import type { EventDraft } from "../../store/redis/events.js";
import type { Stores } from "../../store/types.js";

/** The events of `entries`, in their order (each payout and batch read once, all at once). */
export async function eventDrafts(
  entries: readonly AuditEntry[],
  stores: Pick<Stores, "payouts" | "batches">,
  logger: Logger,
): Promise<EventDraft[]> {
  const relevant = entries.filter((entry) => entry.id !== undefined && mayBeEvent(entry.action));
  const payoutIds = [...new Set(relevant.flatMap((entry) => entry.payoutId ?? []))];
  const batchIds = [
    ...new Set(relevant.flatMap((entry) => (entry.payoutId ? [] : (entry.batchId ?? [])))),
  ];
  const [payouts, batches] = await Promise.all([
    Promise.all(payoutIds.map((id) => stores.payouts.get(id))),
    Promise.all(batchIds.map((id) => stores.batches.get(id))),
  ]);
  const payoutOf = new Map(payoutIds.map((id, index) => [id, payouts[index] ?? null]));
  const batchOf = new Map(batchIds.map((id, index) => [id, batches[index] ?? null]));
  const drafts: EventDraft[] = [];
  for (const entry of relevant) {
    const draft = eventDraft(entry, entry.id ?? "", payoutOf, batchOf, logger);
    if (draft) drafts.push(draft);
  }
  return drafts;
}

function eventDraft(
  entry: AuditEntry,
  entryId: string,
  payoutOf: ReadonlyMap<string, Payout | null>,
  batchOf: ReadonlyMap<string, Batch | null>,
  logger: Logger,
): EventDraft | null {
  if (entry.payoutId !== undefined) {
    const payout = payoutOf.get(entry.payoutId);
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
    const batch = batchOf.get(entry.batchId);
    if (!batch) return gone(entry, logger);
    return draftOf(source, entry, entryId, batchEventData(batch), `batch:${batch.id}`);
  }
  const source = eventSourceOf(entry, undefined);
  if (!source) return null;
  const data = availabilityEventData(entry);
  const subject = `operator:${String(data.operator)}:${String(data.operation)}`;
  return draftOf(source, entry, entryId, data, subject);
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
