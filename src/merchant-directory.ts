/**
 * Who works for which merchant (MERCHANTS_FILE), answered without asking every merchant.
 *
 * Routing an update needs the merchants its sender is staff of. Asking each merchant's staff
 * store costs one Redis read per merchant per sender: 200 merchants, 200 reads. Instead a
 * global set per person (`staff-of:<userId>`) names the merchants they may work for, and
 * only those are asked. The set is a superset, never short:
 * - each merchant adds its whole staff when its runtime starts (STAFF and runtime changes);
 * - a merchant adds a person *before* writing their role (IndexedStaffStore), so a crash in
 *   between leaves one name too many, not one too few;
 * - nothing is removed from it: a removed person's merchant is still asked, and answers
 *   "not staff", so what counts is always the merchant's own staff store.
 * The answer is kept MEMBERSHIP_CACHE_MS per person in this process.
 */
import type { Role } from "./model/roles.js";
import type { StaffMember, StaffOrigin } from "./model/staff.js";
import type { StaffStore } from "./store/types.js";

/** How long who-works-where is remembered for routing and naming merchants in messages. */
const MEMBERSHIP_CACHE_MS = 2_000;
const MEMBERSHIP_CACHE_SIZE = 10_000;

/** The commands the directory needs: one Redis (or Cluster) connection's. */
export interface DirectoryRedis {
  smembers(key: string): Promise<string[]>;
  sadd(key: string, ...members: string[]): Promise<number>;
}

/** What the directory knows of a running merchant. */
export interface DirectoryMerchant {
  readonly id: string;
  /** This merchant's role for the person, from its own staff store. */
  roleOf(userId: number): Promise<Role | null>;
}

export class MerchantDirectory {
  readonly #redis: DirectoryRedis;
  readonly #keyOf: (userId: number) => string;
  readonly #merchants: () => Iterable<DirectoryMerchant>;
  readonly #cache = new Map<number, { atMs: number; ids: Promise<string[]> }>();

  /** `merchants`: the ones running now, in the file's order. */
  constructor(
    redis: DirectoryRedis,
    keyOf: (userId: number) => string,
    merchants: () => Iterable<DirectoryMerchant>,
  ) {
    this.#redis = redis;
    this.#keyOf = keyOf;
    this.#merchants = merchants;
  }

  /** The ids of the running merchants `userId` is staff of, in the file's order. */
  merchantsOf(userId: number): Promise<string[]> {
    const cached = this.#cache.get(userId);
    if (cached && Date.now() - cached.atMs < MEMBERSHIP_CACHE_MS) return cached.ids;
    const ids = this.#read(userId);
    // Only recent senders are worth keeping: a bounded map, emptied when it grows past that.
    if (this.#cache.size >= MEMBERSHIP_CACHE_SIZE) this.#cache.clear();
    this.#cache.set(userId, { atMs: Date.now(), ids });
    ids.catch(() => this.#cache.delete(userId));
    return ids;
  }

  async #read(userId: number): Promise<string[]> {
    const named = new Set(await this.#redis.smembers(this.#keyOf(userId)));
    const candidates = [...this.#merchants()].filter((merchant) => named.has(merchant.id));
    const roles = await Promise.all(candidates.map((merchant) => merchant.roleOf(userId)));
    return candidates.filter((_, index) => roles[index] !== null).map((merchant) => merchant.id);
  }

  /** Names `merchantId` in the person's set (before their role is written there). */
  async add(merchantId: string, userId: number): Promise<void> {
    await this.#redis.sadd(this.#keyOf(userId), merchantId);
    this.#cache.delete(userId);
  }

  /** Names `merchantId` in the set of each of its staff (a runtime's start). */
  async addAll(merchantId: string, staff: readonly StaffMember[]): Promise<void> {
    await Promise.all(staff.map((member) => this.add(merchantId, member.userId)));
  }

  /** Forgets every answer kept (the merchants running changed). */
  forget(): void {
    this.#cache.clear();
  }
}

/** A merchant's staff store that names the merchant in the directory before adding anyone. */
export class IndexedStaffStore implements StaffStore {
  readonly #inner: StaffStore;
  readonly #added: (userId: number) => Promise<void>;

  constructor(inner: StaffStore, added: (userId: number) => Promise<void>) {
    this.#inner = inner;
    this.#added = added;
  }

  get(userId: number): Promise<Role | null> {
    return this.#inner.get(userId);
  }

  async set(userId: number, role: Role, origin?: StaffOrigin, grantedAtMs?: number) {
    await this.#added(userId);
    await this.#inner.set(userId, role, origin, grantedAtMs);
  }

  remove(userId: number, origin?: StaffOrigin): Promise<boolean> {
    return this.#inner.remove(userId, origin);
  }

  origin(userId: number): Promise<StaffOrigin | null> {
    return this.#inner.origin(userId);
  }

  list(): Promise<StaffMember[]> {
    return this.#inner.list();
  }
}

/** `{ staff }` wrapped to call `added` first, or nothing to change without it (one merchant). */
export function indexedStaff(
  staff: StaffStore,
  added: ((userId: number) => Promise<void>) | undefined,
): { staff?: StaffStore } {
  return added ? { staff: new IndexedStaffStore(staff, added) } : {};
}
