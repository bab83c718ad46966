/**
 * Whether a batch's row repeats what was paid lately: the same number and amount within
 * DUPLICATE_WINDOW_MINUTES, in the payouts (single ones, rows of other batches: the same
 * per-number index `/pay` warns from) or in the rows of another open batch that have no
 * payout yet (a preview waiting for Confirm, a batch still being paid).
 */
import type { Batch, BatchRow, BatchState, RowRepeat } from "../../model/batch.js";
import type { Stores } from "../../store/types.js";
import { latestDuplicate } from "../duplicates.js";
import { isPayable, type PayableRow } from "./checks.js";
import { allRows } from "./rows.js";

/** Other batches whose payable rows may not be payouts yet. */
const OPEN_STATES: readonly BatchState[] = [
  "checking",
  "ready",
  "awaiting_approval",
  "running",
  "sent",
];
/** The latest batches looked at (everyone's). */
const RECENT_BATCHES = 20;

export class RowRepeats {
  readonly #stores: Stores;
  readonly #batch: Batch;
  readonly #sinceMs: number;
  /** `phone:amount` → the earliest open row of another batch. */
  readonly #openRows: ReadonlyMap<string, RowRepeat>;

  private constructor(
    stores: Stores,
    batch: Batch,
    sinceMs: number,
    openRows: ReadonlyMap<string, RowRepeat>,
  ) {
    this.#stores = stores;
    this.#batch = batch;
    this.#sinceMs = sinceMs;
    this.#openRows = openRows;
  }

  /** Reads the other open batches' rows once, for the rows of `batch` checked next. */
  static async load(
    stores: Stores,
    batch: Batch,
    window: { windowMs: number; nowMs: number },
  ): Promise<RowRepeats> {
    const sinceMs = window.nowMs - window.windowMs;
    const openRows = new Map<string, RowRepeat>();
    const recent = await stores.batches.list({ limit: RECENT_BATCHES });
    // Oldest first, so the earliest row of a number and amount is the one kept.
    for (const other of recent.reverse()) {
      if (other.id === batch.id || !OPEN_STATES.includes(other.state)) continue;
      if (sameSchedule(batch, other)) continue;
      if (other.createdAtMs < sinceMs) continue;
      for (const row of await allRows(stores, other.id)) {
        if (!isPayable(row)) continue;
        const key = keyOf(row);
        if (openRows.has(key)) continue;
        openRows.set(key, {
          source: "batch",
          batchId: other.id,
          row: row.row,
          atMs: other.createdAtMs,
          by: other.initiatorId,
          state: other.state,
        });
      }
    }
    return new RowRepeats(stores, batch, sinceMs, openRows);
  }

  /** The row marked as a possible duplicate of what it repeats, or the row as it was. */
  async mark(row: BatchRow): Promise<BatchRow> {
    if (!isPayable(row)) return row;
    const repeats = await this.#find(row);
    return repeats ? { ...row, problem: "recent_duplicate", repeats } : row;
  }

  async #find(row: PayableRow): Promise<RowRepeat | undefined> {
    // A scheduled batch's run repeats its schedule's earlier runs by design (the plan its
    // owner confirmed): only other payouts count.
    const own = `${this.#batch.run?.scheduleId ?? this.#batch.id}-`;
    const query = { phone: row.phone, amount: row.amount, kind: "disbursement" as const };
    const payout = await latestDuplicate(
      this.#stores.payouts,
      { ...query, sinceMs: this.#sinceMs },
      { idPrefix: own },
    );
    if (payout) {
      return {
        source: "payout",
        payoutId: payout.id,
        atMs: payout.createdAtMs,
        by: payout.initiatorId,
        state: payout.state,
      };
    }
    return this.#openRows.get(keyOf(row));
  }
}

/** Two runs of one scheduled batch. */
function sameSchedule(batch: Batch, other: Batch): boolean {
  return batch.run !== undefined && other.run?.scheduleId === batch.run.scheduleId;
}

function keyOf(row: PayableRow): string {
  return `${row.phone}:${row.amount}`;
}
