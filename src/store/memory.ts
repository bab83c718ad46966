/**
 * Every store in process memory, for the demo without Redis. Same semantics as the Redis
 * stores (held to them by the contract tests), on an injectable clock. One process only:
 * nothing here is shared between replicas.
 */

import { TOTALS_KEPT_MIN_MS } from "../model/totals.js";
import { DEFAULT_TIME_ZONE } from "../time.js";
import { MemoryAuditLog } from "./memory/audit.js";
import { MemoryBatchStore } from "./memory/batches.js";
import { MemoryCallbackGate } from "./memory/callback-gate.js";
import { MemoryApprovalCards } from "./memory/cards.js";
import { MemoryDueQueue } from "./memory/due-queue.js";
import { MemoryLeaseStore } from "./memory/leases.js";
import { MemoryOutbox } from "./memory/outbox.js";
import { MemoryPayoutStore } from "./memory/payouts.js";
import { MemoryPinStore } from "./memory/pins.js";
import { MemoryProfileStore } from "./memory/profiles.js";
import { MemoryRecipientStore } from "./memory/recipients.js";
import { MemoryReportsStore } from "./memory/reports.js";
import { MemoryScheduleStore } from "./memory/schedules.js";
import { MemorySessionStore } from "./memory/sessions.js";
import { MemorySettledTotals } from "./memory/settled-totals.js";
import { MemorySlotLogs } from "./memory/slot-logs.js";
import { MemorySpendingLedger } from "./memory/spending.js";
import { MemoryStaffStore } from "./memory/staff.js";
import { MemoryThrottleStore } from "./memory/throttles.js";
import { DEFAULT_APPROVAL_CARD_TTL_MS, type Stores } from "./types.js";

export interface MemoryStoresOptions {
  /** How long a payout is kept after its last move, unless in flight. */
  retentionMs: number;
  /** How long approval cards are remembered; default DEFAULT_APPROVAL_CARD_TTL_MS. */
  approvalCardTtlMs?: number;
  /** The clock for expiries (payouts, dialogs, leases); Date.now by default. */
  now?: () => number;
  /** TIME_ZONE: the day a settled payout is counted on (model/totals.ts); default Douala. */
  timeZone?: string;
}

/** Every store in memory. `ping` is always true; `close` does nothing. */
export function createMemoryStores(options: MemoryStoresOptions): Stores {
  const now = options.now ?? Date.now;
  // Late-bound: the payout store is made after the outbox and batches that read it.
  const outbox = new MemoryOutbox(
    (id) => payouts.get(id),
    (phone) => recipients.isSaved(phone),
  );
  const tracking = new MemoryDueQueue();
  const audit = new MemoryAuditLog(now, options.retentionMs);
  const spending = new MemorySpendingLedger(now);
  const staff = new MemoryStaffStore(now);
  const slots = new MemorySlotLogs(now);
  const batches = new MemoryBatchStore({
    now,
    enqueueNotice: (key, atMs) => outbox.put(key, atMs),
    audit: (entry) => audit.append(entry),
    payout: (id) => payouts.get(id),
    standing: (userId) => staff.standing(userId),
  });
  const recipients = new MemoryRecipientStore(now);
  const throttles = new MemoryThrottleStore(now);
  const payouts: MemoryPayoutStore = new MemoryPayoutStore({
    retentionMs: options.retentionMs,
    now,
    enqueueNotice: (key, atMs) => outbox.put(key, atMs),
    track: (id, atMs) => tracking.put(id, atMs),
    untrack: (id) => tracking.take(id),
    audit: (entry) => audit.append(entry),
    spending,
    reads: {
      batchState: (batchId) => batches.stateOf(batchId),
      standing: (userId) => staff.standing(userId),
    },
    slots,
    totals: new MemorySettledTotals({
      now,
      timeZone: options.timeZone ?? DEFAULT_TIME_ZONE,
      keptMs: Math.max(options.retentionMs, TOTALS_KEPT_MIN_MS),
    }),
    notePaid: (phone, atMs) => recipients.markPaidNow(phone, atMs),
    takePress: (press) => throttles.takeNow(press.name, press.limit, press.windowMs),
  });
  const leases = new MemoryLeaseStore(now);
  return {
    kind: "memory",
    payouts,
    sessions: new MemorySessionStore(now),
    staff,
    profiles: new MemoryProfileStore(),
    tracking,
    outbox,
    audit,
    reports: new MemoryReportsStore(
      now,
      (key, atMs) => outbox.put(key, atMs),
      (entry) => audit.append(entry),
    ),
    spending,
    cards: new MemoryApprovalCards(now, options.approvalCardTtlMs ?? DEFAULT_APPROVAL_CARD_TTL_MS),
    batches,
    recipients,
    schedules: new MemoryScheduleStore({
      now,
      retentionMs: options.retentionMs,
      enqueueNotice: (key, atMs) => outbox.put(key, atMs),
      audit: (entry) => audit.append(entry),
      standing: (userId) => staff.standing(userId),
    }),
    leases,
    throttles,
    callbacks: new MemoryCallbackGate({ payouts, throttles, leases, slots }),
    pins: new MemoryPinStore((key, atMs) => outbox.put(key, atMs)),
    ping: async () => true,
    close: async () => {},
  };
}
