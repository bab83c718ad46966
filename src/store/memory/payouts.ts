/**
 * PayoutStore in process memory, for the demo without Redis. Same semantics as the Redis
 * store (the contract tests hold both to them): compare-and-set moves, claimId idempotency,
 * the outbox on settlement, expiry by retention on the injected clock. Single process, so
 * each method runs to completion without awaiting in between: that is its atomicity.
 * Records go in and out as deep copies, so callers cannot change what is stored.
 */
import type { Actor, AuditAction, AuditDetails, AuditEntry } from "../../model/audit.js";
import {
  givesBack,
  type PayoutEvent,
  type PayoutState,
  TRACKED_STATES,
  type TrackedState,
  targetOf,
} from "../../model/lifecycle.js";
import { noticeKey } from "../../model/notice.js";
import type { Payout, PayoutPatch } from "../../model/payout.js";
import { COUNTED_STATES, countedAtMs, type DayTotals } from "../../model/totals.js";
import { payoutDraft, payoutFacts } from "../audit-codec.js";
import { PayoutExistsError } from "../errors.js";
import { type OldestInStateOptions, pickOldest } from "../oldest-in-state.js";
import { checkPatch, checkPayout, noticesOfMove, recordLifetimeMs } from "../payout-codec.js";
import type { RepeatQuery } from "../payout-store.js";
import type {
  Created,
  CreatedPage,
  CreatedPageOptions,
  MarkSendingResult,
  PayoutListOptions,
  PayoutStore,
  StatePageOptions,
  StatusListOptions,
  TransitionOptions,
  TransitionResult,
  WordMatches,
  WordQuery,
} from "../types.js";
import { countSignatures, type MoveReads, moveRefusal } from "./move-checks.js";
import { statusGroupPage, wordMatches } from "./payout-search.js";
import type { MemorySettledTotals } from "./settled-totals.js";
import type { MemorySlotLogs } from "./slot-logs.js";
import type { MemorySpendingLedger } from "./spending.js";

interface Entry {
  payout: Payout;
  /** null while in flight (never expires). */
  expiresAtMs: number | null;
}

export interface MemoryPayoutStoreOptions {
  retentionMs: number;
  now: () => number;
  /** Called inside a move that queues notices, like the Redis script's ZADD to the outbox. */
  enqueueNotice: (key: string, atMs: number) => void;
  /** Called inside a move that schedules the payout's first poll, like the script's ZADD. */
  track: (id: string, atMs: number) => void;
  /** Called inside a move made with `untrack`, like the script's ZREM from the schedule. */
  untrack: (id: string) => void;
  /** Called inside every move (and creation) made, like the scripts' XADD to the audit log. */
  audit: (entry: Omit<AuditEntry, "id">) => void;
  /** Reserved against and given back to inside moves, like the scripts' spending hashes. */
  spending: MemorySpendingLedger;
  /** A batch's state and a member's standing now, read inside a move (as the script does). */
  reads: MoveReads;
  /** Counts a press (TransitionOptions.press) in the move's step: false when over its limit. */
  takePress?: (press: NonNullable<TransitionOptions["press"]>) => boolean;
  /** Where a move's rate-limit slot is taken (TransitionOptions.slot). */
  slots: MemorySlotLogs;
  /** Counted inside a creation or move into a counted final state, like totals.lua. */
  totals: MemorySettledTotals;
  /** The address book's last-paid note, made inside a settling move (TransitionOptions.notePaid). */
  notePaid?: (phone: string, atMs: number) => void;
}

export class MemoryPayoutStore implements PayoutStore {
  readonly #entries = new Map<string, Entry>();
  readonly #byPaymentId = new Map<string, string>();
  /** `chatId:userId` → each initiator's latest prompt in a chat, kept as long as it is. */
  readonly #prompts = new Map<string, { id: string; expiresAtMs: number | null }>();
  readonly #options: MemoryPayoutStoreOptions;

  constructor(options: MemoryPayoutStoreOptions) {
    this.#options = options;
  }

  async create(payout: Payout, options: { actor?: Actor } = {}): Promise<Created> {
    const record = checkPayout(payout);
    if (this.#live(record.id)) throw new PayoutExistsError(record.id);
    this.#store(structuredClone(record));
    this.#audit(record, "prompt", this.#options.now(), options.actor, undefined);
    if (COUNTED_STATES.has(record.state)) this.#options.totals.count(record, countedAtMs(record));
    // A batch's row (or a schedule's run) is no one's open prompt.
    if (record.batchId !== undefined || record.scheduleId !== undefined) return { replaced: null };
    const key = `${record.chatId}:${record.initiatorId}`;
    const previous = this.#openPrompt(key);
    this.#prompts.set(key, {
      id: record.id,
      expiresAtMs: this.#entries.get(record.id)?.expiresAtMs ?? null,
    });
    if (previous === null || previous === record.id) return { replaced: null };
    return { replaced: { id: previous, state: this.#live(previous)?.payout.state ?? null } };
  }

  async openPrompt(chatId: number, userId: number): Promise<string | null> {
    return this.#openPrompt(`${chatId}:${userId}`);
  }

  #openPrompt(key: string): string | null {
    const prompt = this.#prompts.get(key);
    if (!prompt) return null;
    if (prompt.expiresAtMs !== null && prompt.expiresAtMs <= this.#options.now()) {
      this.#prompts.delete(key);
      return null;
    }
    return prompt.id;
  }

  async get(id: string): Promise<Payout | null> {
    const entry = this.#live(id);
    return entry ? structuredClone(entry.payout) : null;
  }

  async transition(
    id: string,
    event: PayoutEvent,
    patch: PayoutPatch = {},
    options: TransitionOptions = {},
  ): Promise<TransitionResult> {
    const checked = checkPatch(patch);
    const entry = this.#live(id);
    const target = targetOf(event);
    const claim = options.claimId;
    // Counted first, as payout-transition.lua counts it; a resend of a claim made is not.
    const resent = claim !== undefined && entry?.payout.claimId === claim;
    if (options.press && !resent) {
      const takePress = this.#options.takePress;
      if (!takePress) throw new Error("this memory store counts no presses (takePress)");
      if (!takePress(options.press)) return { ok: false, reason: "throttled" };
    }
    if (!entry) return { ok: false, reason: "not_found" };
    const current = entry.payout;
    const expect = options.expect;
    if (expect?.initiatorId !== undefined && current.initiatorId !== expect.initiatorId) {
      return { ok: false, reason: "not_initiator", payout: structuredClone(current) };
    }
    if (claim !== undefined && current.state === target && current.claimId === claim) {
      return { ok: true, payout: structuredClone(current), applied: false, durable: true };
    }
    const refusal = moveRefusal(current, event, expect, this.#options.reads);
    if (refusal) return { ok: false, reason: refusal, payout: structuredClone(current) };
    const owner =
      checked.paymentId === undefined ? undefined : this.#byPaymentId.get(checked.paymentId);
    if (owner !== undefined && owner !== id && this.#live(owner)) {
      return { ok: false, reason: "payment_taken", payout: structuredClone(current) };
    }
    // An approval by signatures, counted as payout-transition.lua counts them.
    const counted = countSignatures(current, options, this.#options.reads, this.#options.now());
    if (counted === "already_signed") {
      return { ok: false, reason: "already_signed", payout: structuredClone(current) };
    }
    const signatures = counted?.signatures;
    if (counted && !counted.last) {
      const signed: Payout = {
        ...current,
        signatures: counted.signatures,
        updatedAtMs: this.#options.now(),
      };
      this.#store(signed);
      for (const notice of options.signature?.signedNotices ?? []) {
        this.#options.enqueueNotice(noticeKey(notice), signed.updatedAtMs);
      }
      this.#audit(signed, "sign", signed.updatedAtMs, options.actor, options.auditDetails);
      return {
        ok: true,
        payout: structuredClone(signed),
        applied: false,
        durable: true,
        signed: true,
      };
    }
    const { spending } = this.#options;
    const held = current.limitDay;
    // A hold on another day moves to the reservation's day; one on that day stays as it is.
    const reserve =
      options.reserve?.kind === current.kind && options.reserve.day !== held
        ? options.reserve
        : undefined;
    const over =
      reserve && spending.overLimit(reserve.day, current.initiatorId, current.amount, reserve);
    if (over) return { ok: false, reason: "over_limit", payout: structuredClone(current), ...over };
    const nowMs = this.#options.now();
    const moved: Payout = {
      ...current,
      ...structuredClone(checked),
      state: target,
      updatedAtMs: nowMs,
      ...(claim === undefined ? {} : { claimId: claim }),
      ...(options.stampSentAtMs ? { sentAtMs: nowMs } : {}),
      ...(reserve === undefined ? {} : { limitDay: reserve.day }),
      ...(signatures === undefined ? {} : { signatures }),
    };
    this.#store(moved);
    if (options.trackAtMs !== undefined) this.#options.track(id, options.trackAtMs);
    if (options.untrack) this.#options.untrack(id);
    if (reserve) spending.spend(reserve.day, current.initiatorId, current.amount);
    if ((givesBack(target) || reserve) && held !== undefined) {
      spending.giveBack(held, current.initiatorId, current.amount);
    }
    const batchRow = current.batchId !== undefined;
    for (const key of noticesOfMove(id, target, options.notices, batchRow)) {
      this.#options.enqueueNotice(key, nowMs);
    }
    this.#audit(moved, event, nowMs, options.actor, options.auditDetails, current.state);
    if (COUNTED_STATES.has(target)) this.#options.totals.count(moved, checked.settledAtMs ?? nowMs);
    if (options.stampSentAtMs) this.#audit(moved, "submit", nowMs, options.actor, undefined);
    if (options.notePaid && target === "success") {
      this.#options.notePaid?.(options.notePaid.phone, options.notePaid.atMs);
    }
    const result = {
      ok: true,
      payout: structuredClone(moved),
      applied: true,
      durable: true,
    } as const;
    if (options.slot === undefined) return result;
    return { ...result, slotTaken: this.#options.slots.take(options.slot) };
  }

  async markSending(
    id: string,
    claimId: string,
    options: { actor?: Actor } = {},
  ): Promise<MarkSendingResult> {
    const entry = this.#live(id);
    if (!entry) return { ok: false, payout: null };
    if (entry.payout.state !== "submitting" || entry.payout.claimId !== claimId) {
      return { ok: false, payout: structuredClone(entry.payout) };
    }
    const sentAtMs = this.#options.now();
    entry.payout = { ...entry.payout, sentAtMs };
    this.#audit(entry.payout, "submit", sentAtMs, options.actor, undefined);
    return { ok: true, sentAtMs, durable: true };
  }

  /** The audit entry of a move (or creation, or submission) of `payout`, as the scripts write it. */
  #audit(
    payout: Payout,
    action: AuditAction,
    atMs: number,
    actor: Actor | undefined,
    details: AuditDetails | undefined,
    from?: PayoutState,
  ): void {
    // A move out of a prompt is audited with the payout it repeats, as the script does.
    const repeats =
      from === "awaiting_confirmation" && payout.duplicateOf !== undefined
        ? { duplicateOf: payout.duplicateOf }
        : undefined;
    const facts = repeats || details ? { ...repeats, ...details } : undefined;
    const draft = payoutDraft(payout.id, action, atMs, actor, facts);
    const to = action === "submit" ? undefined : payout.state;
    this.#options.audit({
      ...draft,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...payoutFacts(payout),
    });
  }

  async update(id: string, patch: PayoutPatch): Promise<Payout | null> {
    const checked = checkPatch(patch);
    const entry = this.#live(id);
    if (!entry) return null;
    entry.payout = { ...entry.payout, ...structuredClone(checked) };
    if (checked.paymentId !== undefined) this.#byPaymentId.set(checked.paymentId, id);
    return structuredClone(entry.payout);
  }

  async settledTotals(days: readonly string[], userId?: number): Promise<DayTotals[]> {
    return this.#options.totals.read(days, userId);
  }

  async findByPaymentId(paymentId: string): Promise<Payout | null> {
    const id = this.#byPaymentId.get(paymentId);
    const entry = id === undefined ? undefined : this.#live(id);
    return entry?.payout.paymentId === paymentId ? structuredClone(entry.payout) : null;
  }

  async listByPhone(
    phone: string,
    page: { sinceMs: number; offset: number; limit: number },
  ): Promise<Payout[]> {
    const cutoffMs = Math.max(page.sinceMs, this.#cutoffMs());
    return structuredClone(byPhonePage(this.#payouts(), phone, cutoffMs, page));
  }

  async latestRepeat(query: RepeatQuery): Promise<Payout | null> {
    const cutoffMs = Math.max(query.sinceMs, this.#cutoffMs());
    const page = { offset: 0, limit: query.lookback };
    const found = byPhonePage(this.#payouts(), query.phone, cutoffMs, page).find(
      (payout) =>
        payout.amount === query.amount &&
        payout.kind === query.kind &&
        !query.excludedStates.includes(payout.state) &&
        payout.id !== query.skipId &&
        !(query.skipIdPrefix && payout.id.startsWith(query.skipIdPrefix)),
    );
    return found ? structuredClone(found) : null;
  }

  /** Covers payouts created within the retention window, like the Redis indexes. */
  async list(options: PayoutListOptions): Promise<{ items: Payout[]; total: number }> {
    return structuredClone(listPage(this.#payouts(), this.#cutoffMs(), options));
  }

  /** Pages as the Redis index does: by creation time, then id; the cursor is `{ms}:{id}`. */
  async findByWords(query: WordQuery): Promise<WordMatches> {
    return structuredClone(wordMatches(this.#payouts(), this.#cutoffMs(), query));
  }

  async listByStatus(options: StatusListOptions): Promise<{ items: Payout[]; total: number }> {
    return structuredClone(statusGroupPage(this.#payouts(), this.#cutoffMs(), options));
  }

  async listCreated(options: CreatedPageOptions): Promise<CreatedPage> {
    if (options.limit <= 0) return { items: [] };
    return structuredClone(createdPage(this.#payouts(), this.#cutoffMs(), options));
  }

  async listInState(state: TrackedState): Promise<Payout[]> {
    return structuredClone(this.#payouts().filter((payout) => payout.state === state));
  }

  async oldestInState(state: TrackedState, options: OldestInStateOptions) {
    const rows = this.#payouts().filter((payout) => payout.state === state);
    const { count, ids } = pickOldest(rows, options);
    const items = ids.flatMap((id) => rows.filter((payout) => payout.id === id));
    return { count, items: structuredClone(items) };
  }

  async pageInState(state: TrackedState, options: StatePageOptions): Promise<CreatedPage> {
    return structuredClone(statePage(this.#payouts(), state, options));
  }

  async idsInState(state: TrackedState): Promise<string[]> {
    return (await this.listInState(state)).map((payout) => payout.id);
  }

  async countInStates(): Promise<Map<TrackedState, number>> {
    const payouts = this.#payouts();
    return new Map(
      TRACKED_STATES.map((state) => [state, payouts.filter((p) => p.state === state).length]),
    );
  }

  /** The live payouts (not copies): those expired are forgotten first. */
  #payouts(): Payout[] {
    this.#sweep();
    return [...this.#entries.values()].map((entry) => entry.payout);
  }

  /** The oldest creation time the indexes still cover. */
  #cutoffMs(): number {
    return this.#options.now() - this.#options.retentionMs;
  }

  /** Stores `payout` as is, with the expiry and index its state calls for. */
  #store(payout: Payout): void {
    const nowMs = this.#options.now();
    const lifetimeMs = recordLifetimeMs(payout, nowMs, this.#options.retentionMs);
    const expiresAtMs = lifetimeMs === null ? null : nowMs + lifetimeMs;
    this.#entries.set(payout.id, { payout, expiresAtMs });
    if (payout.paymentId !== undefined) this.#byPaymentId.set(payout.paymentId, payout.id);
  }

  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry && this.#expired(entry)) {
      this.#forget(entry.payout);
      return undefined;
    }
    return entry;
  }

  #sweep(): void {
    for (const entry of this.#entries.values())
      if (this.#expired(entry)) this.#forget(entry.payout);
  }

  #expired(entry: Entry): boolean {
    return entry.expiresAtMs !== null && entry.expiresAtMs <= this.#options.now();
  }

  #forget(payout: Payout): void {
    this.#entries.delete(payout.id);
    if (payout.paymentId !== undefined && this.#byPaymentId.get(payout.paymentId) === payout.id) {
      this.#byPaymentId.delete(payout.paymentId);
    }
  }
}

/**
 * The listings of MemoryPayoutStore, over its live payouts, in the orders and pages the
 * Redis indexes give: newest first by creation time then id, or oldest first with a
 * `{ms}:{id}` cursor. Pure: the store passes the payouts and the retention's cutoff.
 */
/** Redis's ZREVRANGE order: score (createdAtMs) descending, then id descending. */
export function newestFirst(a: Payout, b: Payout): number {
  if (a.createdAtMs !== b.createdAtMs) return b.createdAtMs - a.createdAtMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function slice<T>(items: readonly T[], offset: number, limit: number): T[] {
  return items.slice(offset, offset + Math.max(limit, 0));
}

/** Payouts to `phone` created at `cutoffMs` or later, newest first, one page. */
export function byPhonePage(
  payouts: readonly Payout[],
  phone: string,
  cutoffMs: number,
  page: { offset: number; limit: number },
): Payout[] {
  const matching = payouts
    .filter((payout) => payout.phone === phone && payout.createdAtMs >= cutoffMs)
    .sort(newestFirst);
  return slice(matching, page.offset, page.limit);
}

/** One page of history (everyone's, or one initiator's), newest first, and the total. */
export function listPage(
  payouts: readonly Payout[],
  cutoffMs: number,
  options: PayoutListOptions,
): { items: Payout[]; total: number } {
  const matching = payouts
    .filter((payout) => options.userId === undefined || payout.initiatorId === options.userId)
    .filter((payout) => payout.createdAtMs >= cutoffMs)
    .sort(newestFirst);
  return { items: slice(matching, options.offset, options.limit), total: matching.length };
}

/** Oldest first, from `fromMs` to `toMs`, after the cursor `after`; `next` when full. */
export function createdPage(
  payouts: readonly Payout[],
  cutoffMs: number,
  options: CreatedPageOptions,
): CreatedPage {
  const [afterMs, afterId] = (options.after ?? "").split(":");
  const isAfter = (payout: Payout) =>
    options.after === undefined ||
    payout.createdAtMs > Number(afterMs) ||
    (payout.createdAtMs === Number(afterMs) && payout.id > (afterId ?? ""));
  const page = payouts
    .filter((payout) => payout.createdAtMs >= Math.max(options.fromMs, cutoffMs))
    .filter((payout) => payout.createdAtMs <= options.toMs && isAfter(payout))
    .sort((a, b) => -newestFirst(a, b))
    .slice(0, options.limit);
  const last = page.at(-1);
  return page.length === options.limit && last
    ? { items: page, next: `${last.createdAtMs}:${last.id}` }
    : { items: page };
}

/** A page of the payouts in `state`, in id order; the cursor is the last id of the page before. */
export function statePage(
  payouts: readonly Payout[],
  state: PayoutState,
  options: StatePageOptions,
): CreatedPage {
  const { after } = options;
  const rest = payouts
    .filter((payout) => payout.state === state && (after === undefined || payout.id > after))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const items = rest.slice(0, Math.max(1, options.limit));
  const last = items.at(-1);
  return rest.length > items.length && last ? { items, next: last.id } : { items };
}
