/**
 * PayoutStore in process memory, for the demo without Redis. Same semantics as the Redis
 * store (the contract tests hold both to them): compare-and-set moves, claimId idempotency,
 * the outbox on settlement, expiry by retention on the injected clock. Single process, so
 * each method runs to completion without awaiting in between: that is its atomicity.
 * Records go in and out as deep copies, so callers cannot change what is stored.
 */
import type { Actor, AuditAction, AuditDetails, AuditEntry } from "../model/audit.js";
import {
  givesBack,
  type PayoutEvent,
  type PayoutState,
  type TrackedState,
  targetOf,
} from "../model/lifecycle.js";
import type { Payout, PayoutPatch } from "../model/payout.js";
import { payoutDraft, payoutFacts } from "./audit-codec.js";
import { type MoveReads, moveRefusal } from "./memory-move-checks.js";
import { byPhonePage, createdPage, listPage, statePage } from "./memory-payout-pages.js";
import type { MemorySpendingLedger } from "./memory-spending.js";
import {
  checkPatch,
  checkPayout,
  noticesOfMove,
  PayoutExistsError,
  recordLifetimeMs,
} from "./payout-codec.js";
import type {
  Created,
  CreatedPage,
  CreatedPageOptions,
  MarkSendingResult,
  PayoutListOptions,
  PayoutStore,
  StatePageOptions,
  TransitionOptions,
  TransitionResult,
} from "./types.js";

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
  /** Called inside every move (and creation) made, like the scripts' XADD to the audit log. */
  audit: (entry: Omit<AuditEntry, "id">) => void;
  /** Reserved against and given back to inside moves, like the scripts' spending hashes. */
  spending: MemorySpendingLedger;
  /** A batch's state and a member's standing now, read inside a move (as the script does). */
  reads: MoveReads;
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
    if (!entry) return { ok: false, reason: "not_found" };
    const current = entry.payout;
    const target = targetOf(event);
    const claim = options.claimId;
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
    };
    this.#store(moved);
    if (options.trackAtMs !== undefined) this.#options.track(id, options.trackAtMs);
    if (reserve) spending.spend(reserve.day, current.initiatorId, current.amount);
    if ((givesBack(target) || reserve) && held !== undefined) {
      spending.giveBack(held, current.initiatorId, current.amount);
    }
    const batchRow = current.batchId !== undefined;
    for (const key of noticesOfMove(id, target, options.notices, batchRow)) {
      this.#options.enqueueNotice(key, nowMs);
    }
    this.#audit(moved, event, nowMs, options.actor, options.auditDetails, current.state);
    if (options.stampSentAtMs) this.#audit(moved, "submit", nowMs, options.actor, undefined);
    return { ok: true, payout: structuredClone(moved), applied: true, durable: true };
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

  /** Covers payouts created within the retention window, like the Redis indexes. */
  async list(options: PayoutListOptions): Promise<{ items: Payout[]; total: number }> {
    return structuredClone(listPage(this.#payouts(), this.#cutoffMs(), options));
  }

  /** Pages as the Redis index does: by creation time, then id; the cursor is `{ms}:{id}`. */
  async listCreated(options: CreatedPageOptions): Promise<CreatedPage> {
    if (options.limit <= 0) return { items: [] };
    return structuredClone(createdPage(this.#payouts(), this.#cutoffMs(), options));
  }

  async listInState(state: TrackedState): Promise<Payout[]> {
    return structuredClone(this.#payouts().filter((payout) => payout.state === state));
  }

  async pageInState(state: TrackedState, options: StatePageOptions): Promise<CreatedPage> {
    return structuredClone(statePage(this.#payouts(), state, options));
  }

  async idsInState(state: TrackedState): Promise<string[]> {
    return (await this.listInState(state)).map((payout) => payout.id);
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
