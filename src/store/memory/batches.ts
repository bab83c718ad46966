/** Batches in memory (unit tests): the same contract as redis/batches.ts. */

import { type SignerStanding, signersStand } from "../../model/approval-rules.js";
import { type Actor, type AuditEntry, actorFields } from "../../model/audit.js";
import {
  type Batch,
  type BatchPatch,
  type BatchRow,
  BatchSchema,
  type BatchState,
  type BatchTally,
  emptyTally,
  rowPayoutId,
  standingOfState,
  WORKED_BATCH_STATES,
} from "../../model/batch.js";
import { type Notice, noticeKey } from "../../model/notice.js";
import type { Payout } from "../../model/payout.js";
import type { BatchMoveOptions, BatchMoveResult, BatchStore } from "../batch-store.js";
import { checkInput } from "../schemas.js";

export interface MemoryBatchStoreOptions {
  now: () => number;
  enqueueNotice: (key: string, atMs: number) => void;
  audit: (entry: Omit<AuditEntry, "id">) => void;
  /** A payout as the payout store has it (a row's, for `tally`). */
  payout: (id: string) => Promise<Payout | null>;
  /** A staff member's role and grant time now (`BatchMoveOptions.signers`); null: none. */
  standing: (userId: number) => SignerStanding | null;
}

export class MemoryBatchStore implements BatchStore {
  readonly #batches = new Map<string, Batch>();
  readonly #rows = new Map<string, BatchRow[]>();
  readonly #options: MemoryBatchStoreOptions;

  constructor(options: MemoryBatchStoreOptions) {
    this.#options = options;
  }

  /** The state of batch `id` now, or null (read inside a payout move, as the script does). */
  stateOf(id: string): BatchState | null {
    return this.#batches.get(id)?.state ?? null;
  }

  async create(batch: Batch, rows: readonly BatchRow[], actor: Actor): Promise<boolean> {
    const record = checkInput(BatchSchema, batch, "batch");
    if (this.#batches.has(record.id)) return false;
    this.#batches.set(record.id, structuredClone(record));
    this.#rows.set(record.id, structuredClone([...rows]));
    this.#options.audit({
      atMs: this.#options.now(),
      ...actorFields(actor),
      action: "batch_upload",
      batchId: record.id,
      details: { rows: record.rowCount, file: record.fileName },
    });
    return true;
  }

  async get(id: string): Promise<Batch | null> {
    const batch = this.#batches.get(id);
    return batch ? structuredClone(batch) : null;
  }

  async rows(id: string, from: number, count: number): Promise<BatchRow[]> {
    return structuredClone((this.#rows.get(id) ?? []).slice(from, from + Math.max(0, count)));
  }

  async tally(id: string): Promise<BatchTally> {
    const tally = emptyTally();
    for (const row of this.#rows.get(id) ?? []) {
      const payout =
        row.problem === undefined ? await this.#options.payout(rowPayoutId(id, row.row)) : null;
      const standing = row.problem === undefined ? standingOfState(payout?.state) : "skipped";
      tally[standing] += 1;
      if (standing === "paid" && payout) {
        tally.paidXaf += payout.amount;
        tally.feesXaf += payout.fee ?? 0;
      }
    }
    return tally;
  }

  async setRows(id: string, rows: ReadonlyArray<{ index: number; row: BatchRow }>): Promise<void> {
    const stored = this.#rows.get(id);
    if (!stored) return;
    for (const { index, row } of rows) {
      if (index < stored.length) stored[index] = structuredClone(row);
    }
  }

  async move(
    id: string,
    from: readonly BatchState[],
    to: BatchState,
    patch: BatchPatch = {},
    options: BatchMoveOptions = {},
  ): Promise<BatchMoveResult> {
    const batch = this.#batches.get(id);
    if (!batch) return { ok: false, batch: null };
    const stale =
      options.expectVersion !== undefined && (batch.version ?? 0) !== options.expectVersion;
    const { signers } = options;
    const signerGone = signers !== undefined && !signersStand(signers, this.#options.standing);
    if (!from.includes(batch.state) || stale || signerGone) {
      return { ok: false, batch: structuredClone(batch) };
    }
    const before = batch.state;
    const version = (batch.version ?? 0) + 1;
    const moved = this.#apply(batch, { ...patch, version }, to, options.notices);
    const { audit } = options;
    if (audit) {
      this.#options.audit({
        atMs: this.#options.now(),
        ...actorFields(audit.actor),
        action: `batch_${audit.action}`,
        batchId: id,
        details: { ...audit.details, from: before, to },
        ...(moved.totalXaf !== undefined ? { amount: moved.totalXaf } : {}),
      });
    }
    return { ok: true, batch: structuredClone(moved) };
  }

  async update(id: string, patch: BatchPatch, notices?: readonly Notice[]): Promise<Batch | null> {
    const batch = this.#batches.get(id);
    if (!batch) return null;
    return structuredClone(this.#apply(batch, patch, batch.state, notices));
  }

  #apply(
    batch: Batch,
    patch: BatchPatch,
    state: BatchState,
    notices: readonly Notice[] = [],
  ): Batch {
    const nowMs = this.#options.now();
    const next = checkInput(
      BatchSchema,
      { ...batch, ...patch, state, updatedAtMs: nowMs },
      "batch",
    );
    this.#batches.set(batch.id, next);
    for (const notice of notices) this.#options.enqueueNotice(noticeKey(notice), nowMs);
    return next;
  }

  async active(): Promise<string[]> {
    return [...this.#batches.values()]
      .filter((batch) => WORKED_BATCH_STATES.includes(batch.state))
      .map((batch) => batch.id);
  }

  async list(options: { userId?: number; limit: number }): Promise<Batch[]> {
    return [...this.#batches.values()]
      .filter((batch) => options.userId === undefined || batch.initiatorId === options.userId)
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .slice(0, options.limit)
      .map((batch) => structuredClone(batch));
  }
}
