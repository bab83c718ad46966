/**
 * Where batches live: the batch (one record, moved by compare-and-set on its state, with
 * its notices and audit entry in the same atomic step) and its rows (in spreadsheet order,
 * each rewritten as it is checked or handled).
 */

import type { SignersExpected } from "../model/approval-rules.js";
import type { Actor, AuditDetails, BatchAuditStep } from "../model/audit.js";
import type { Batch, BatchPatch, BatchRow, BatchState, BatchTally } from "../model/batch.js";
import type { Notice } from "../model/notice.js";

export type BatchMoveResult = { ok: true; batch: Batch } | { ok: false; batch: Batch | null };

export interface BatchMoveOptions {
  /** Queued in the outbox in the same atomic step as the move, and only if it is made. */
  notices?: readonly Notice[];
  /** Audited (action `batch_{action}`) in the same step, with the states before and after. */
  audit?: { action: BatchAuditStep; actor: Actor; details?: AuditDetails };
  /**
   * Moves only if the batch's `version` (absent: 0) is still this one, checked in the same
   * atomic step: the move of a step that read the batch before someone else moved it fails.
   */
  expectVersion?: number;
  /**
   * Moves only if each of `userIds` is on staff now in one of `roles`, granted no later
   * than `askedAtMs`, read in the same atomic step: signatures counted from an earlier read
   * of the staff never land once one of their signers lost that standing.
   */
  signers?: SignersExpected;
}

export interface BatchStore {
  /** Stores a new batch and its rows (nothing when the id exists: false). */
  create(batch: Batch, rows: readonly BatchRow[], actor: Actor): Promise<boolean>;
  get(id: string): Promise<Batch | null>;
  /** Rows `from` (0-based position) to `from + count - 1`, in spreadsheet order. */
  rows(id: string, from: number, count: number): Promise<BatchRow[]>;
  /**
   * Where every row stands now, from its payout (model/batch.ts standingOfState; a row with
   * a problem is skipped), and what the paid rows came to: counted where the payouts are,
   * so that the worker, which counts every few seconds while the rows settle, never reads
   * a thousand payouts to get seven numbers.
   */
  tally(id: string): Promise<BatchTally>;
  /** Rewrites rows at their positions (what the checks or the worker found). */
  setRows(id: string, rows: ReadonlyArray<{ index: number; row: BatchRow }>): Promise<void>;
  /**
   * Moves the batch from one of `from` to `to`, merging `patch`, only if it is in one of
   * `from` now (and at `expectVersion`, when given); adds one to its `version`; queues the notices and writes the audit entry in the same atomic step.
   */
  move(
    id: string,
    from: readonly BatchState[],
    to: BatchState,
    patch?: BatchPatch,
    options?: BatchMoveOptions,
  ): Promise<BatchMoveResult>;
  /** Sets bookkeeping fields (progress, cursors) without a state change; null when gone. */
  update(id: string, patch: BatchPatch, notices?: readonly Notice[]): Promise<Batch | null>;
  /** Ids of the batches the worker has something to do for (checking, running, sent). */
  active(): Promise<string[]>;
  /** Newest first: `userId`'s batches, or everyone's. */
  list(options: { userId?: number; limit: number }): Promise<Batch[]>;
}
