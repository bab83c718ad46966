/**
 * Events for the business's own systems (Standard Webhooks): which audit entries become
 * which event, the event's id (from the entry's place in the audit stream, so a retry or a
 * replay carries the same id), and what its body says. Pure: no I/O.
 *
 * The audit stream is the events' outbox: every move of a payout or a batch is written to
 * it in the same atomic step as the move itself (store/redis/lua/includes/audit.lua), so an event exists
 * exactly when its change does.
 */
import type { AuditEntry } from "./audit.js";
import type { Batch } from "./batch.js";
import type { Payout, PayoutKind } from "./payout.js";

/** The payout steps an event is sent for (`payout.*` or `collection.*`). */
export const PAYOUT_EVENT_STEPS = [
  "submitted",
  "pending",
  "succeeded",
  "failed",
  "unknown",
  "resolved",
  "canceled",
] as const;
export type PayoutEventStep = (typeof PAYOUT_EVENT_STEPS)[number];

/** `subject.step`, built from two words so the type and the text come from one place. */
function typeName<S extends string, T extends string>(subject: S, step: T): `${S}.${T}` {
  return `${subject}.${step}`;
}

export const EVENT_TYPES = [
  ...PAYOUT_EVENT_STEPS.map((step) => typeName("payout", step)),
  ...PAYOUT_EVENT_STEPS.map((step) => typeName("collection", step)),
  ...(["requested", "signed", "approved", "rejected", "expired"] as const).map((step) =>
    typeName("approval", step),
  ),
  ...(["confirmed", "completed", "stopped"] as const).map((step) => typeName("batch", step)),
  typeName("operator", "availability_changed"),
];
export type EventType = (typeof EVENT_TYPES)[number];

/** What an audit entry is, as an event: its type and whose it is. */
export type EventSource =
  | { type: EventType; subject: "payout"; payoutId: string }
  | { type: EventType; subject: "batch"; batchId: string }
  | { type: EventType; subject: "operator" };

/** Audit actions of a payout → the step its event reports (none: not sent). */
const PAYOUT_STEP_OF: Readonly<Record<string, PayoutEventStep>> = {
  /** The request left (the submission's own entry, stamped when it is let go). */
  submit: "submitted",
  accepted: "pending",
  accepted_late: "pending",
  lost: "unknown",
  /** The API refused it: nothing was paid. */
  refused: "failed",
  settle_success: "succeeded",
  settle_failed: "failed",
  settle_canceled: "canceled",
  resolve_with_id: "resolved",
  resolve_failed: "resolved",
};

const APPROVAL_TYPE_OF: Readonly<Record<string, EventType>> = {
  request_approval: typeName("approval", "requested"),
  /** A signature short of its approval rule (APPROVAL_RULES); the last one is `approve`. */
  sign: typeName("approval", "signed"),
  approve: typeName("approval", "approved"),
  reject: typeName("approval", "rejected"),
};

const BATCH_TYPE_OF: Readonly<Record<string, EventType>> = {
  batch_confirm: typeName("batch", "confirmed"),
  batch_done: typeName("batch", "completed"),
  batch_stop: typeName("batch", "stopped"),
};

/**
 * The event an audit entry stands for, or null when it is not one the business hears of
 * (prompts, cancelled prompts, staff changes, exports…). `kind` is the payout's kind
 * (collections send `collection.*`).
 */
export function eventSourceOf(entry: AuditEntry, kind: PayoutKind | undefined): EventSource | null {
  const { action, payoutId, batchId } = entry;
  if (payoutId !== undefined) {
    const step = PAYOUT_STEP_OF[action];
    if (step) {
      const type = typeName(kind === "collection" ? "collection" : "payout", step);
      return { type, subject: "payout", payoutId };
    }
    const approval =
      action === "expire" && entry.from === "awaiting_approval"
        ? typeName("approval", "expired")
        : APPROVAL_TYPE_OF[action];
    if (approval) return { type: approval, subject: "payout", payoutId };
    return null;
  }
  const batchType = BATCH_TYPE_OF[action];
  if (batchId !== undefined && batchType) return { type: batchType, subject: "batch", batchId };
  if (action === "availability_changed") {
    return { type: typeName("operator", "availability_changed"), subject: "operator" };
  }
  return null;
}

/** Whether an audit action can ever become an event (read the payout only for those). */
export function mayBeEvent(action: string): boolean {
  return (
    action in PAYOUT_STEP_OF ||
    action in APPROVAL_TYPE_OF ||
    action in BATCH_TYPE_OF ||
    action === "expire" ||
    action === "availability_changed"
  );
}

/** The event's id: `evt_` and its audit entry's stream id (unique, the same on every try). */
export function eventIdOf(auditEntryId: string): string {
  return `evt_${auditEntryId.replace("-", "_")}`;
}

/** The audit stream id an event id was made from. */
export function auditIdOfEvent(eventId: string): string {
  return eventId.replace(/^evt_/, "").replace("_", "-");
}

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** A payout as the business knows it: no chat, message, claim or other internals. */
export function payoutEventData(payout: Payout) {
  return {
    id: payout.id,
    paymentId: payout.paymentId ?? null,
    kind: payout.kind,
    status: payout.state,
    amount: payout.amount,
    fee: payout.fee ?? null,
    currency: "XAF",
    phoneNumber: payout.phone,
    operator: payout.operator,
    recipientName: payout.recipientName,
    note: payout.note ?? null,
    /** What the API said about a failed or canceled payment. */
    remark: payout.apiRemark ?? null,
    initiatedBy: payout.initiatorId,
    approvedBy: payout.approvedBy ?? null,
    /** APPROVAL_RULES: how many signatures it needs (null: one approver, or none). */
    signaturesNeeded: payout.approvalRule?.signatures ?? null,
    /** Who signed so far, oldest first (the last one is `approvedBy` once approved). */
    signedBy: (payout.signatures ?? []).map((signature) => signature.userId),
    rejectedBy: payout.rejectedBy ?? null,
    rejectionReason: payout.rejectionReason ?? null,
    resolvedBy: payout.resolvedBy ?? null,
    batchId: payout.batchId ?? null,
    createdAt: iso(payout.createdAtMs),
    updatedAt: iso(payout.updatedAtMs),
    sentAt: iso(payout.sentAtMs),
    settledAt: iso(payout.settledAtMs),
  };
}

/** A batch as the business knows it. */
export function batchEventData(batch: Batch) {
  return {
    id: batch.id,
    status: batch.state,
    fileName: batch.fileName,
    rows: batch.rowCount,
    payableRows: batch.payableRows ?? null,
    totalAmount: batch.totalXaf ?? null,
    currency: "XAF",
    initiatedBy: batch.initiatorId,
    stoppedBy: batch.stoppedBy ?? null,
    tally: batch.tally ?? null,
    createdAt: iso(batch.createdAtMs),
    confirmedAt: iso(batch.confirmedAtMs),
    finishedAt: iso(batch.finishedAtMs),
  };
}

/** An operator's operation as it changed (from its audit entry's details). */
export function availabilityEventData(entry: AuditEntry) {
  const details = entry.details ?? {};
  return {
    operator: details.operator ?? null,
    operation: details.operation ?? null,
    /** The API's word for it (OPERATIONAL: up). */
    status: details.status ?? null,
    available: details.up === true,
    since: new Date(entry.atMs).toISOString(),
  };
}

/**
 * The JSON body of an event (`{ type, timestamp, data }`, the spec's shape): `timestamp` is
 * when the change happened; `data` the payout or batch as it was when the event was queued,
 * with `actor` (the Telegram user id of who did it; 0: the bot itself).
 */
export function eventBody(
  type: EventType,
  entry: AuditEntry,
  data: Record<string, unknown>,
): string {
  return JSON.stringify({
    type,
    timestamp: new Date(entry.atMs).toISOString(),
    data: { ...data, actor: entry.actorId },
  });
}

/**
 * The pause before try `attempt` + 1 after `attempt` failed tries: `firstMs` doubled per
 * try, up to `maxMs`, plus up to a fifth more at random (never under `firstMs`, never over
 * `maxMs`), so receivers coming back are not hit by every sender at once.
 */
export function retryDelayMs(
  attempt: number,
  options: { firstMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const base = Math.min(options.maxMs, options.firstMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(Math.min(options.maxMs, base * (1 + random() / 5)));
}
