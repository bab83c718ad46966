/**
 * The admins' daily digest: what one day brought (payouts and collections created that
 * day, counted and summed by state, with the fees of those that completed), what still
 * needs a person (unknown payouts, pending ones reported stuck or no longer polled), and
 * the sections of features that report there (batches run, limit use). Read when the
 * digest is delivered, page by page, never the whole day at once.
 */
import { z } from "zod";
import type { PayoutState } from "../../model/lifecycle.js";
import { chargedFee, type Payout, type PayoutKind } from "../../model/payout.js";
import { type Role, RoleSchema } from "../../model/roles.js";
import { payoutsInState } from "../../store/payout-store.js";
import type { Stores } from "../../store/types.js";
import { type Day, nextDay, startOfDayMs } from "../../time.js";
import type { ScheduleDigest } from "../schedule/digest-facts.js";

export interface StateTotal {
  state: PayoutState;
  count: number;
  /** Whole XAF. */
  amount: number;
  /** Waiting for approval with some signatures given, more needed (APPROVAL_RULES). */
  partlySigned?: number;
}

export interface KindTotals {
  /** States with at least one payout: outcomes first (DIGEST_ORDER). */
  states: StateTotal[];
  /** Fees of the payments that completed. */
  fees: number;
}

/** A batch run that day (the batch feature reports here). */
export interface BatchRun {
  batchId: string;
  payouts: number;
  succeeded: number;
  amount: number;
}

/** A daily limit and what was used of it (the limits feature reports here). */
export interface LimitUse {
  /** The payer whose limit it is; absent for the merchant's limit, everyone's together. */
  userId?: number;
  usedXaf: number;
  limitXaf: number;
}

/** What other features add to the digest: batches run, and the daily limits (app-reports.ts). */
export interface DigestSources {
  batches?: (window: { fromMs: number; toMs: number }) => Promise<BatchRun[]>;
  /** Only limits that are configured: none configured, nothing to show. */
  limits?: (window: { fromMs: number; toMs: number }) => Promise<LimitUse[]>;
  /** Tomorrow's scheduled runs and the held ones (schedule/digest-facts.ts). */
  schedules?: (day: Day) => Promise<ScheduleDigest>;
}

/** A staff change made that day, as the audit trail has it. */
export interface StaffChangeFact {
  atMs: number;
  userId: number;
  /** The role before (null: not staff); undefined: not recorded (an older entry). */
  before: Role | null | undefined;
  /** The role after; null: removed. */
  after: Role | null;
  /** The admin who made it; 0: the STAFF setting at start. */
  byUserId: number;
}

/** What a staff change's audit entry holds (payouts/staff.ts writes it). */
const StaffDetailsSchema = z.object({
  userId: z.number().int(),
  role: RoleSchema.optional(),
  oldRole: RoleSchema.nullable().optional(),
});

export interface DigestFacts {
  day: Day;
  fromMs: number;
  /** The end of the day, or the time of the digest when the day is not over. */
  toMs: number;
  totals: Record<PayoutKind, KindTotals>;
  /** Newest first, at most `ATTENTION_SHOWN`. */
  attention: Payout[];
  attentionTotal: number;
  batches: BatchRun[];
  limits: LimitUse[];
  schedules?: ScheduleDigest;
  /** Oldest first, at most `STAFF_CHANGES_SHOWN`. */
  staffChanges: StaffChangeFact[];
  staffChangesTotal: number;
}

/** The order states are told in: outcomes first, then what is under way, then what never left. */
const DIGEST_ORDER: readonly PayoutState[] = [
  "success",
  "failed",
  "canceled",
  "rejected_by_api",
  "pending",
  "unknown",
  "submitting",
  "awaiting_approval",
  "awaiting_confirmation",
  "rejected",
  "cancelled",
  "expired",
];

/** Payouts needing a person that a digest lists by reference; the rest are counted. */
export const ATTENTION_SHOWN = 10;
/** Staff changes a digest lists; the rest are counted. */
export const STAFF_CHANGES_SHOWN = 20;
const PAGE_SIZE = 500;

/** Pending payouts a person must look at: reported stuck, or no longer polled. */
function needsPerson(payout: Payout): boolean {
  return payout.stuckReportedAtMs !== undefined || payout.trackingStoppedAtMs !== undefined;
}

export class DailyDigest {
  readonly #stores: Stores;
  readonly #timeZone: string;
  readonly #now: () => number;
  readonly #sources: DigestSources;

  constructor(options: {
    stores: Stores;
    timeZone: string;
    now: () => number;
    sources?: DigestSources;
  }) {
    this.#stores = options.stores;
    this.#timeZone = options.timeZone;
    this.#now = options.now;
    this.#sources = options.sources ?? {};
  }

  /** The facts of `day` (in TIME_ZONE), as they stand now. */
  async facts(day: Day): Promise<DigestFacts> {
    const fromMs = startOfDayMs(day, this.#timeZone);
    const toMs = Math.min(this.#now(), startOfDayMs(nextDay(day), this.#timeZone) - 1);
    const window = { fromMs, toMs };
    const [totals, attention, batches, limits, staff, schedules] = await Promise.all([
      this.#totals(window),
      this.#attention(),
      this.#sources.batches?.(window) ?? [],
      this.#sources.limits?.(window) ?? [],
      this.#staffChanges(window),
      this.#sources.schedules?.(day),
    ]);
    const facts = { day, fromMs, toMs, totals, ...attention, batches, limits, ...staff };
    return schedules ? { ...facts, schedules } : facts;
  }

  /** The day's staff changes, from the audit trail, read page by page. */
  async #staffChanges(window: { fromMs: number; toMs: number }) {
    const changes: StaffChangeFact[] = [];
    let total = 0;
    let after: string | undefined;
    do {
      const page = await this.#stores.audit.range({ ...window, limit: PAGE_SIZE, after });
      for (const entry of page.entries) {
        if (entry.action !== "staff_set" && entry.action !== "staff_removed") continue;
        const details = StaffDetailsSchema.safeParse(entry.details ?? {});
        if (!details.success) continue;
        const role = entry.action === "staff_set" ? (details.data.role ?? null) : null;
        if (entry.action === "staff_set" && role === null) continue;
        total += 1;
        if (changes.length >= STAFF_CHANGES_SHOWN) continue;
        changes.push({
          atMs: entry.atMs,
          userId: details.data.userId,
          before: details.data.oldRole,
          after: role,
          byUserId: entry.actorId,
        });
      }
      after = page.next;
    } while (after !== undefined);
    return { staffChanges: changes, staffChangesTotal: total };
  }

  async #totals(window: { fromMs: number; toMs: number }) {
    const sums = {
      disbursement: new Map<PayoutState, StateTotal>(),
      collection: new Map<PayoutState, StateTotal>(),
    };
    const fees = { disbursement: 0, collection: 0 };
    let after: string | undefined;
    do {
      const page = await this.#stores.payouts.listCreated({ ...window, limit: PAGE_SIZE, after });
      for (const payout of page.items) {
        const byState = sums[payout.kind];
        const total = byState.get(payout.state) ?? { state: payout.state, count: 0, amount: 0 };
        const signed = payout.state === "awaiting_approval" && (payout.signatures ?? []).length > 0;
        byState.set(payout.state, {
          ...total,
          count: total.count + 1,
          amount: total.amount + payout.amount,
          ...(signed ? { partlySigned: (total.partlySigned ?? 0) + 1 } : {}),
        });
        fees[payout.kind] += chargedFee(payout) ?? 0;
      }
      after = page.next;
    } while (after !== undefined);
    const inOrder = (byState: Map<PayoutState, StateTotal>) =>
      DIGEST_ORDER.flatMap((state) => byState.get(state) ?? []);
    return {
      disbursement: { states: inOrder(sums.disbursement), fees: fees.disbursement },
      collection: { states: inOrder(sums.collection), fees: fees.collection },
    };
  }

  /**
   * The newest few payouts that need a person, and how many there are. The in-flight sets
   * are read a page at a time: thousands of pending payouts are never held at once.
   */
  async #attention(): Promise<{ attention: Payout[]; attentionTotal: number }> {
    const newestFirst = (a: Payout, b: Payout) =>
      b.createdAtMs - a.createdAtMs || a.id.localeCompare(b.id);
    let shown: Payout[] = [];
    let total = 0;
    for (const state of ["unknown", "pending"] as const) {
      for await (const page of payoutsInState(this.#stores.payouts, state, PAGE_SIZE)) {
        const needing = state === "unknown" ? page : page.filter(needsPerson);
        total += needing.length;
        shown = [...shown, ...needing].sort(newestFirst).slice(0, ATTENTION_SHOWN);
      }
    }
    return { attention: shown, attentionTotal: total };
  }
}
