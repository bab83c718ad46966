/**
 * The storage interfaces. Each has a Redis implementation (production, tests) and an
 * in-memory one (the demo without Redis); one contract test suite runs against both so
 * they cannot drift. Payout logic lives above these, once.
 */

import type { AuditDraft, AuditEntry } from "../model/audit.js";
import type { OperationObservation, OperationState } from "../model/availability.js";
import type { DialogState } from "../model/dialog.js";
import type { Locale } from "../model/locale.js";
import type { Payout } from "../model/payout.js";
import type { Role } from "../model/roles.js";
import type { StaffMember, StaffOrigin, UserProfile } from "../model/staff.js";
import type { SharedSlot } from "../payments/rate-limiter.js";
import type { BatchStore } from "./batch-store.js";

import type { PayoutStore } from "./payout-store.js";
import type { PinStore } from "./pin-store.js";
import type { RecipientStore } from "./recipient-store.js";
import type { ScheduleStore } from "./schedule-store.js";

export type * from "./batch-store.js";
export type * from "./payout-store.js";
export type * from "./pin-store.js";
export type * from "./recipient-store.js";
export type * from "./schedule-store.js";

export interface SessionStore {
  getDialog(chatId: number): Promise<DialogState | null>;
  setDialog(chatId: number, dialog: DialogState, ttlSeconds: number): Promise<void>;
  clearDialog(chatId: number): Promise<void>;
  getLocale(userId: number): Promise<Locale | null>;
  setLocale(userId: number, locale: Locale): Promise<void>;
}

/** What was counted against one day's spending limits. */
export interface DayUsage {
  merchantXaf: number;
  /** Initiator's user id → XAF; users who spent nothing are left out. */
  byUser: ReadonlyMap<number, number>;
}

/** The days' spending, as moves reserve and give it back (TransitionOptions.reserve). */
export interface SpendingLedger {
  /** What `day` (YYYY-MM-DD) counts; a day nobody spent on reads as zero. */
  usage(day: string): Promise<DayUsage>;
}

/** A message that asks an approver to decide on a payout. */
export interface ApprovalCard {
  chatId: number;
  messageId: number;
}

/**
 * How long approval cards are remembered by default: past APPROVAL_TTL_HOURS' default (24 h),
 * so that a card can still be edited once decided and replied to with a reason.
 */
export const DEFAULT_APPROVAL_CARD_TTL_MS = 3 * 86_400_000;

/** The approval cards sent for each payout, so that they can be edited once it is decided. */
export interface ApprovalCardStore {
  /**
   * Remembers `card` for `payoutId` (and which payout it is about), for as long as the
   * store keeps cards (`approvalCardTtlMs` of the stores' options).
   */
  add(payoutId: string, card: ApprovalCard): Promise<void>;
  list(payoutId: string): Promise<ApprovalCard[]>;
  /** The payout `card` is about (an approver's reply to it), or null. */
  payoutOf(card: ApprovalCard): Promise<string | null>;
}

/**
 * The names of the staff members the bot has seen, so that lists can say who did what by
 * name; a member who never wrote to the bot has none.
 */
export interface ProfileStore {
  set(userId: number, profile: UserProfile): Promise<void>;
  /** The known profiles of these users; users without one are left out. */
  getMany(userIds: readonly number[]): Promise<Map<number, UserProfile>>;
}

export interface StaffStore {
  get(userId: number): Promise<Role | null>;
  /**
   * Sets the role, recording its origin when given. A role that changes (or a new member)
   * records `grantedAtMs` (default now) as when it was granted; setting the same role again
   * keeps the earlier grant time.
   */
  set(userId: number, role: Role, origin?: StaffOrigin, grantedAtMs?: number): Promise<void>;
  /**
   * Removes the role (and its grant time). With a runtime origin the removal itself is
   * remembered, so a restart does not bring the member back from `STAFF`; without one, the
   * origin goes too.
   */
  remove(userId: number, origin?: StaffOrigin): Promise<boolean>;
  /** The origin recorded for this user (a remembered removal included), or null. */
  origin(userId: number): Promise<StaffOrigin | null>;
  list(): Promise<StaffMember[]>;
}

/**
 * A schedule of ids due at times, shared by replicas. `claimDue` hands each due id to one
 * caller only, under a lease: the id becomes due again at `now + leaseMs` unless the
 * caller reschedules or removes it first, so a replica that dies loses nothing.
 */
/** How an id is scheduled. */
export interface ScheduleOptions {
  /**
   * Wake the loop that takes from the queue, on every replica (it may rest until woken):
   * for work written outside that loop. A loop rescheduling its own work needs none.
   */
  wake?: boolean;
}

export interface DueQueue {
  schedule(id: string, dueAtMs: number, options?: ScheduleOptions): Promise<void>;
  claimDue(nowMs: number, limit: number, leaseMs: number): Promise<string[]>;
  remove(id: string): Promise<void>;
  /** When `id` is next due, or null when it is not scheduled. */
  dueAt(id: string): Promise<number | null>;
  /** `dueAt` of each id, in order, in one round trip. */
  dueAtMany(ids: readonly string[]): Promise<Array<number | null>>;
  size(): Promise<number>;
  /** When the earliest id is due (an overdue one is a backlog), or null when empty. */
  earliestDueAtMs(): Promise<number | null>;
}

/**
 * A notice claimed from the outbox. For a payer's notice of a final status
 * (`settled:<payoutId>`) its payout, read in the same step as the claim (null: gone);
 * absent for every other kind of notice.
 */
export interface ClaimedNotice {
  key: string;
  payout?: Payout | null;
  /** With a payout read: whether its number is in the address book, read in the same step. */
  numberSaved?: boolean;
}

/** The outbox: a DueQueue of notice keys whose next notice is claimed with its subject. */
export interface Outbox extends DueQueue {
  /**
   * Claims the next due notice as `claimDue(nowMs, 1, leaseMs)` does and, for a payer's
   * settled notice, reads its payout (and whether its number is saved) in the same atomic
   * step; null when nothing is due.
   */
  claimNext(nowMs: number, leaseMs: number): Promise<ClaimedNotice | null>;
}

/** The name of a payout's callback re-read, as a throttle and as a lease. */
export function callbackRereadName(payoutId: string): string {
  return `callback-reread:${payoutId}`;
}

/** What a payment callback may do about the payout its payment id names. */
export type CallbackAdmission =
  /** No payout has this payment id. */
  | { outcome: "unknown" }
  /** The payout is not pending: nothing to re-read. */
  | { outcome: "not_pending"; payout: Payout }
  /** It was re-read for a callback less than the spacing ago. */
  | { outcome: "spaced"; payout: Payout }
  /** Another callback's re-read of it holds the lease. */
  | { outcome: "leased"; payout: Payout }
  /** Over the cap of callback re-reads (`cap`): no lease taken, left to polling. */
  | { outcome: "over_cap"; payout: Payout }
  /** This callback holds the re-read's lease now; `requestSlot`: see `request`. */
  | { outcome: "admitted"; payout: Payout; requestSlot?: boolean };

export interface CallbackAdmitOptions {
  owner: string;
  spacingMs: number;
  leaseMs: number;
  /** A cap on re-reads, checked once the lease is free: a slot taken, or `over_cap` (no lease). */
  cap?: SharedSlot;
  /** The re-read's own slot, taken when admitted: `requestSlot` says if it was granted. */
  request?: SharedSlot;
}

export interface CallbackGate {
  /**
   * In one atomic step: the payout `paymentId` is indexed to and, when it is pending, one
   * re-read of it counted against `spacingMs` (for good: the spacing counts from this call,
   * whatever follows), then its re-read lease taken for `owner` for `leaseMs` unless another
   * owner holds it. The count and the lease are the throttle and the lease named
   * `callbackRereadName(payoutId)`: `leases.release` gives the lease back. `cap` and
   * `request` make the re-read's rate-limit slots part of the same step (one round trip).
   */
  admit(paymentId: string, options: CallbackAdmitOptions): Promise<CallbackAdmission>;
}

/** A page of the audit log; `next` continues it (absent on the last page). */
export interface AuditPage {
  entries: AuditEntry[];
  next?: string;
}

/**
 * The audit trail, kept for the retention. A payout's moves are written by the payout store
 * with the move itself; `record` is for every other action (staff changes, refusals).
 */
export interface AuditLog {
  record(draft: AuditDraft): Promise<void>;
  /** Newest first: up to `limit` entries older than the entry `before`, or the newest. */
  page(options: { limit: number; before?: string }): Promise<AuditPage>;
  /**
   * Oldest first: up to `limit` entries written from `fromMs` to `toMs` (both included),
   * after the entry `after` when given. For exports, page by page.
   */
  range(options: {
    fromMs: number;
    toMs: number;
    limit: number;
    after?: string;
  }): Promise<AuditPage>;
  /** The newest `limit` entries, newest first. */
  recent(limit: number): Promise<AuditEntry[]>;
}

/** What an observation of an operation did to the state last seen. */
export type AvailabilityChange =
  /** The first time this operation is seen (an alert is queued if it is down). */
  | { kind: "first"; state: OperationState }
  /** Still up, or still down: nothing queued. */
  | { kind: "same"; state: OperationState }
  /** It went down or came back up: the alert is queued. */
  | { kind: "changed"; state: OperationState; previous: OperationState };

/**
 * What the reports remember between replicas and restarts: which days' digests were
 * queued, and how each operator's operations were last seen.
 */
export interface ReportsStore {
  /**
   * Queues the digest notice of `day` in the outbox, once: the first call for a day
   * queues it and answers true, in one atomic step; every later call (another replica, a
   * restart at that hour) answers false. A day is remembered for three days.
   */
  queueDigestOnce(day: string, nowMs: number): Promise<boolean>;
  /**
   * Compares what the API says of an operation with what was last seen and, atomically,
   * keeps it (`nowMs` becomes the time of the last change when it went up or down) and
   * queues the availability notice in the outbox when it went up or down, or is down the
   * first time it is seen. So each change is told once, whichever replica sees it first.
   */
  observeAvailability(
    observation: OperationObservation,
    nowMs: number,
  ): Promise<AvailabilityChange>;
  /** How every operation was last seen (those never seen are left out). */
  availability(): Promise<OperationState[]>;
}

/** Named leases (leader election for the Telegram long-poller). */
export interface LeaseStore {
  /** Takes the lease if free or already ours; true when we hold it now. */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends our lease; false when we lost it. */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  release(name: string, owner: string): Promise<void>;
}

/**
 * Counters that allow a named action a few times per window, shared by replicas: how often
 * one person may press buttons, how often a callback may re-read one payment.
 */
export interface ThrottleStore {
  /**
   * Counts one `name` action and answers true when it is within `limit` in the window,
   * false when over it; atomic, so replicas never both take the last one. The window
   * starts with the first action counted and lasts `windowMs`.
   */
  take(name: string, limit: number, windowMs: number): Promise<boolean>;
}

export interface Stores {
  readonly kind: "redis" | "memory";
  payouts: PayoutStore;
  sessions: SessionStore;
  staff: StaffStore;
  /** Names of the staff members, as Telegram gave them. */
  profiles: ProfileStore;
  /** Pending payouts to poll at `GET /payments/{id}`. */
  tracking: DueQueue;
  /** Notices to deliver (final statuses to payers, approvals, batches, alerts). */
  outbox: Outbox;
  audit: AuditLog;
  /** Digests queued, operator availability last seen. */
  reports: ReportsStore;
  /** What each day counted against the spending limits. */
  spending: SpendingLedger;
  /** The approvers' messages about each payout awaiting approval. */
  cards: ApprovalCardStore;
  /** Batch payouts and their rows. */
  batches: BatchStore;
  /** Saved recipients (the address book), and /save prompts waiting for Save. */
  recipients: RecipientStore;
  /** Scheduled and recurring payouts and their runs. */
  schedules: ScheduleStore;
  leases: LeaseStore;
  /** Per-person and per-payout counts of actions (button presses, callback re-reads). */
  throttles: ThrottleStore;
  /** The step-up PINs (hashes, wrong tries, locks). */
  pins: PinStore;
  /** A payment callback's look-up, spacing and lease, in one step. */
  callbacks: CallbackGate;
  /** True when the backing store answers now. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
