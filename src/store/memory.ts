/**
 * Every store in process memory, for the demo without Redis. Same semantics as the Redis
 * stores (held to them by the contract tests), on an injectable clock. One process only:
 * nothing here is shared between replicas.
 */

import type { DialogState } from "../model/dialog.js";
import { DialogStateSchema } from "../model/dialog.js";
import { type Locale, LocaleSchema } from "../model/locale.js";
import type { Role } from "../model/roles.js";
import { RoleSchema } from "../model/roles.js";
import type { StaffMember, StaffOrigin, UserProfile } from "../model/staff.js";
import { UserProfileSchema } from "../model/staff.js";
import { MemoryPinStore } from "./memory/pins.js";
import { MemoryAuditLog } from "./memory-audit.js";
import { MemoryBatchStore } from "./memory-batches.js";
import { MemoryApprovalCards } from "./memory-cards.js";
import { MemoryPayoutStore } from "./memory-payouts.js";
import { MemoryReportsStore } from "./memory-reports.js";
import { MemorySpendingLedger } from "./memory-spending.js";
import { checkInput } from "./schemas.js";
import {
  DEFAULT_APPROVAL_CARD_TTL_MS,
  type DueQueue,
  type LeaseStore,
  type ProfileStore,
  type SessionStore,
  type StaffStore,
  type Stores,
  type ThrottleStore,
} from "./types.js";

export interface MemoryStoresOptions {
  /** How long a payout is kept after its last move, unless in flight. */
  retentionMs: number;
  /** How long approval cards are remembered; default DEFAULT_APPROVAL_CARD_TTL_MS. */
  approvalCardTtlMs?: number;
  /** The clock for expiries (payouts, dialogs, leases); Date.now by default. */
  now?: () => number;
}

/** Every store in memory. `ping` is always true; `close` does nothing. */
export function createMemoryStores(options: MemoryStoresOptions): Stores {
  const now = options.now ?? Date.now;
  const outbox = new MemoryDueQueue();
  const tracking = new MemoryDueQueue();
  const audit = new MemoryAuditLog(now, options.retentionMs);
  const spending = new MemorySpendingLedger(now);
  const staff = new MemoryStaffStore(now);
  const batches = new MemoryBatchStore({
    now,
    enqueueNotice: (key, atMs) => outbox.put(key, atMs),
    audit: (entry) => audit.append(entry),
  });
  return {
    kind: "memory",
    payouts: new MemoryPayoutStore({
      retentionMs: options.retentionMs,
      now,
      enqueueNotice: (key, atMs) => outbox.put(key, atMs),
      track: (id, atMs) => tracking.put(id, atMs),
      audit: (entry) => audit.append(entry),
      spending,
      reads: {
        batchState: (batchId) => batches.stateOf(batchId),
        standing: (userId) => staff.standing(userId),
      },
    }),
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
    leases: new MemoryLeaseStore(now),
    throttles: new MemoryThrottleStore(now),
    pins: new MemoryPinStore((key, atMs) => outbox.put(key, atMs)),
    ping: async () => true,
    close: async () => {},
  };
}

class MemorySessionStore implements SessionStore {
  readonly #dialogs = new Map<number, { dialog: DialogState; expiresAtMs: number }>();
  readonly #locales = new Map<number, Locale>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async getDialog(chatId: number): Promise<DialogState | null> {
    const entry = this.#dialogs.get(chatId);
    if (!entry) return null;
    if (entry.expiresAtMs <= this.#now()) {
      this.#dialogs.delete(chatId);
      return null;
    }
    return structuredClone(entry.dialog);
  }

  async setDialog(chatId: number, dialog: DialogState, ttlSeconds: number): Promise<void> {
    const checked = checkInput(DialogStateSchema, dialog, "dialog");
    const ttlMs = Math.max(1, Math.ceil(ttlSeconds)) * 1000;
    this.#dialogs.set(chatId, {
      dialog: structuredClone(checked),
      expiresAtMs: this.#now() + ttlMs,
    });
  }

  async clearDialog(chatId: number): Promise<void> {
    this.#dialogs.delete(chatId);
  }

  async getLocale(userId: number): Promise<Locale | null> {
    return this.#locales.get(userId) ?? null;
  }

  async setLocale(userId: number, locale: Locale): Promise<void> {
    this.#locales.set(userId, checkInput(LocaleSchema, locale, "locale"));
  }
}

class MemoryStaffStore implements StaffStore {
  readonly #roles = new Map<number, Role>();
  readonly #origins = new Map<number, StaffOrigin>();
  readonly #granted = new Map<number, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async get(userId: number): Promise<Role | null> {
    return this.#roles.get(userId) ?? null;
  }

  /** The member's role and grant time now (read inside a payout move, as the script does). */
  standing(userId: number): { role: Role; grantedAtMs?: number } | null {
    const role = this.#roles.get(userId);
    if (role === undefined) return null;
    const grantedAtMs = this.#granted.get(userId);
    return grantedAtMs === undefined ? { role } : { role, grantedAtMs };
  }

  async set(
    userId: number,
    role: Role,
    origin?: StaffOrigin,
    grantedAtMs = this.#now(),
  ): Promise<void> {
    const checked = checkInput(RoleSchema, role, "role");
    if (this.#roles.get(userId) !== checked) this.#granted.set(userId, grantedAtMs);
    this.#roles.set(userId, checked);
    if (origin) this.#origins.set(userId, structuredClone(origin));
    else this.#origins.delete(userId);
  }

  async remove(userId: number, origin?: StaffOrigin): Promise<boolean> {
    if (origin) this.#origins.set(userId, { ...structuredClone(origin), removed: true });
    else this.#origins.delete(userId);
    this.#granted.delete(userId);
    return this.#roles.delete(userId);
  }

  async origin(userId: number): Promise<StaffOrigin | null> {
    const origin = this.#origins.get(userId);
    return origin ? structuredClone(origin) : null;
  }

  /** Every member, by user id. */
  async list(): Promise<StaffMember[]> {
    return [...this.#roles]
      .map(([userId, role]) => {
        const origin = this.#origins.get(userId);
        const grantedAtMs = this.#granted.get(userId);
        return {
          userId,
          role,
          ...(origin ? { origin: structuredClone(origin) } : {}),
          ...(grantedAtMs === undefined ? {} : { grantedAtMs }),
        };
      })
      .sort((a, b) => a.userId - b.userId);
  }
}

class MemoryProfileStore implements ProfileStore {
  readonly #profiles = new Map<number, UserProfile>();

  async set(userId: number, profile: UserProfile): Promise<void> {
    this.#profiles.set(userId, { ...checkInput(UserProfileSchema, profile, "profile") });
  }

  async getMany(userIds: readonly number[]): Promise<Map<number, UserProfile>> {
    const found = new Map<number, UserProfile>();
    for (const userId of userIds) {
      const profile = this.#profiles.get(userId);
      if (profile) found.set(userId, { ...profile });
    }
    return found;
  }
}

class MemoryDueQueue implements DueQueue {
  readonly #dueAt = new Map<string, number>();

  /** Synchronous `schedule`, for a store that enqueues inside its own atomic step. */
  put(id: string, dueAtMs: number): void {
    this.#dueAt.set(id, dueAtMs);
  }

  async schedule(id: string, dueAtMs: number): Promise<void> {
    this.put(id, dueAtMs);
  }

  /** Due ids in Redis ZRANGEBYSCORE order (time, then id); each is re-timed to the lease end. */
  async claimDue(nowMs: number, limit: number, leaseMs: number): Promise<string[]> {
    if (limit <= 0) return [];
    const due = [...this.#dueAt]
      .filter(([, dueAtMs]) => dueAtMs <= nowMs)
      .sort(([idA, a], [idB, b]) => (a !== b ? a - b : idA < idB ? -1 : idA > idB ? 1 : 0))
      .slice(0, limit)
      .map(([id]) => id);
    for (const id of due) this.#dueAt.set(id, nowMs + leaseMs);
    return due;
  }

  async remove(id: string): Promise<void> {
    this.#dueAt.delete(id);
  }

  async dueAtMany(ids: readonly string[]): Promise<Array<number | null>> {
    return ids.map((id) => this.#dueAt.get(id) ?? null);
  }

  async dueAt(id: string): Promise<number | null> {
    return this.#dueAt.get(id) ?? null;
  }

  async size(): Promise<number> {
    return this.#dueAt.size;
  }
}

class MemoryThrottleStore implements ThrottleStore {
  readonly #windows = new Map<string, { count: number; endsAtMs: number }>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async take(name: string, limit: number, windowMs: number): Promise<boolean> {
    const nowMs = this.#now();
    const open = this.#windows.get(name);
    const window = open && open.endsAtMs > nowMs ? open : { count: 0, endsAtMs: nowMs + windowMs };
    window.count += 1;
    this.#windows.set(name, window);
    // Ended windows go as others are counted, so the map stays as small as the live ones.
    for (const [other, { endsAtMs }] of this.#windows) {
      if (endsAtMs <= nowMs) this.#windows.delete(other);
    }
    return window.count <= limit;
  }
}

class MemoryLeaseStore implements LeaseStore {
  readonly #leases = new Map<string, { owner: string; expiresAtMs: number }>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const holder = this.#holder(name);
    if (holder !== null && holder !== owner) return false;
    this.#leases.set(name, { owner, expiresAtMs: this.#now() + ttlMs });
    return true;
  }

  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    if (this.#holder(name) !== owner) return false;
    this.#leases.set(name, { owner, expiresAtMs: this.#now() + ttlMs });
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    if (this.#holder(name) === owner) this.#leases.delete(name);
  }

  #holder(name: string): string | null {
    const lease = this.#leases.get(name);
    if (!lease || lease.expiresAtMs <= this.#now()) return null;
    return lease.owner;
  }
}
