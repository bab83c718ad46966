/**
 * The storage interfaces. Each has a Redis implementation (production, tests) and an
 * in-memory one (the demo without Redis); one contract test suite runs against both so
 * they cannot drift. Payout logic lives above these, once.
 */
import type { Actor, AuditDetails, AuditDraft, AuditEntry } from "../model/audit.js";
import type { OperationObservation, OperationState } from "../model/availability.js";
import type { DialogState } from "../model/dialog.js";
import type { PayoutEvent, TrackedState } from "../model/lifecycle.js";
import type { Locale } from "../model/locale.js";
import type { Notice } from "../model/notice.js";
import type { Payout, PayoutPatch } from "../model/payout.js";
import type { Role } from "../model/roles.js";
import type { StaffMember, StaffOrigin, UserProfile } from "../model/staff.js";

export type TransitionResult =
  | {
      ok: true;
      payout: Payout;
      /** True when this call (not an earlier one) made the move. */
      applied: boolean;
      /**
       * False only when a durable write was asked for and the store could not confirm it
       * was persisted in time (see store/durability.ts); the move itself was made.
       */
      durable: boolean;
    }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "wrong_state"; payout: Payout }
  /** The patch's paymentId already belongs to another payout; nothing was changed. */
  | { ok: false; reason: "payment_taken"; payout: Payout }
  /** A precondition of `expect` does not hold (another initiator; past its expiry). */
  | { ok: false; reason: "not_initiator" | "expired"; payout: Payout };

/** A page of history: `userId` undefined means everyone's. */
export interface PayoutListOptions {
  userId?: number;
  offset: number;
  limit: number;
}

/** A stretch of payouts by creation time, oldest first; `next` continues it (absent at the end). */
export interface CreatedPage {
  items: Payout[];
  next?: string;
}

/**
 * The last check before sending: still ours to send, or moved on (then nothing may leave).
 * `durable: false`: the check and the claim before it are not known to be persisted.
 */
export type MarkSendingResult =
  | { ok: true; sentAtMs: number; durable: boolean }
  | { ok: false; payout: Payout | null };

export interface DurableOption {
  /**
   * Wait until the write is persisted (a replica or the AOF has it) before answering, as
   * the store's durability plan allows; the answer says whether that was confirmed.
   */
  durable?: boolean;
}

export interface TransitionOptions extends DurableOption {
  claimId?: string;
  /** Queued in the outbox in the same atomic step as the move, and only if it is made. */
  notices?: readonly Notice[];
  /**
   * Who made the move (default: the bot itself). Every move that is made is written to the
   * audit log in the same atomic step, with this actor, the states before and after, the
   * amount and the masked number.
   */
  actor?: Actor;
  /** Facts for the audit entry of the move (a payment id, a reason). */
  auditDetails?: AuditDetails;
  /**
   * Checked in the same atomic step, before anything is written: the payout was started by
   * this user (else `not_initiator`), and has not expired at this time (else `expired`).
   */
  expect?: { initiatorId?: number; notExpiredAtMs?: number };
  /**
   * Stamps `sentAtMs` with the store's clock, and audits the submission, in the same step:
   * the move is the last check before a payment request that leaves right after it.
   */
  stampSentAtMs?: boolean;
  /** Schedules the payout's first status poll at this time, in the same step. */
  trackAtMs?: number;
}

export interface PayoutStore {
  /**
   * Stores a new payout (state `awaiting_confirmation`), indexed under its initiator, and
   * audits it (`prompt`) in the same atomic step.
   */
  create(payout: Payout, options?: { actor?: Actor }): Promise<void>;
  get(id: string): Promise<Payout | null>;
  /**
   * The atomic compare-and-set of the lifecycle: applies `event` only if the current
   * state allows it (lifecycle.ts), merging `patch` and setting `updatedAtMs`.
   *
   * With `claimId`, the call is idempotent for that claimant: if the payout is already in
   * the event's target state with the same `claimId`, the result is `ok: true,
   * applied: false`. So a command that ioredis resends after a reconnect finds its own
   * claim instead of reporting a conflict and stranding the payout.
   *
   * Moving into a final state (no way out) sets the record's expiry to the retention;
   * while in flight it never expires. `paymentId` in the patch indexes the payout for
   * `findByPaymentId`. A move into `success | failed | canceled` also queues the payer's
   * notice (`outbox`) in the same atomic step, so it cannot be lost between the two, and so
   * do the `notices` of the options.
   */
  transition(
    id: string,
    event: PayoutEvent,
    patch?: PayoutPatch,
    options?: TransitionOptions,
  ): Promise<TransitionResult>;
  /**
   * Atomically: if the payout is still `submitting` under `claimId`, stamps `sentAtMs` with
   * the store's clock and answers ok; otherwise changes nothing. Called right before a
   * payment request leaves: a payout moved on (e.g. marked unknown) is never sent.
   */
  markSending(
    id: string,
    claimId: string,
    options?: DurableOption & { actor?: Actor },
  ): Promise<MarkSendingResult>;
  /** Sets fields without a state change (bookkeeping such as `messageId`, `notifiedAtMs`). */
  update(id: string, patch: PayoutPatch): Promise<Payout | null>;
  findByPaymentId(paymentId: string): Promise<Payout | null>;
  /** Newest first. `userId` undefined: everyone's. Records that expired are skipped. */
  list(options: PayoutListOptions): Promise<{ items: Payout[]; total: number }>;
  /**
   * Oldest first: up to `limit` payouts created from `fromMs` to `toMs` (both included),
   * after the page that gave `after` as its `next`. Each call reads one page of the
   * creation index and nothing more, so exports and the digest go through any number of
   * payouts page by page. Records that expired are skipped: a page may hold fewer than
   * `limit` and still have a `next`.
   */
  listCreated(options: {
    fromMs: number;
    toMs: number;
    limit: number;
    after?: string;
  }): Promise<CreatedPage>;
  /** Payouts now in `state` (used for `unknown`, and to resume tracking `pending`). */
  listInState(state: TrackedState): Promise<Payout[]>;
  /** Ids of the payouts now in `state`, without reading them (resuming 10,000 pending ones). */
  idsInState(state: TrackedState): Promise<string[]>;
}

export interface SessionStore {
  getDialog(chatId: number): Promise<DialogState | null>;
  setDialog(chatId: number, dialog: DialogState, ttlSeconds: number): Promise<void>;
  clearDialog(chatId: number): Promise<void>;
  getLocale(userId: number): Promise<Locale | null>;
  setLocale(userId: number, locale: Locale): Promise<void>;
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
  /** Sets the role, recording its origin when given. */
  set(userId: number, role: Role, origin?: StaffOrigin): Promise<void>;
  /**
   * Removes the role. With a runtime origin the removal itself is remembered, so a restart
   * does not bring the member back from `STAFF`; without one, the origin goes too.
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
export interface DueQueue {
  schedule(id: string, dueAtMs: number): Promise<void>;
  claimDue(nowMs: number, limit: number, leaseMs: number): Promise<string[]>;
  remove(id: string): Promise<void>;
  /** When `id` is next due, or null when it is not scheduled. */
  dueAt(id: string): Promise<number | null>;
  /** `dueAt` of each id, in order, in one round trip. */
  dueAtMany(ids: readonly string[]): Promise<Array<number | null>>;
  size(): Promise<number>;
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

export interface Stores {
  readonly kind: "redis" | "memory";
  payouts: PayoutStore;
  sessions: SessionStore;
  staff: StaffStore;
  /** Names of the staff members, as Telegram gave them. */
  profiles: ProfileStore;
  /** Pending payouts to poll at `GET /payments/{id}`. */
  tracking: DueQueue;
  /** Final statuses to tell payers (ids of payouts). */
  outbox: DueQueue;
  audit: AuditLog;
  /** Digests queued, operator availability last seen. */
  reports: ReportsStore;
  leases: LeaseStore;
  /** True when the backing store answers now. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
