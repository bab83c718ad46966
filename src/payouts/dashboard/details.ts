/**
 * A payout's detail with its audit trail, and the batches with their rows, for the Mini
 * App. The audit log is indexed by time, not by payout: a payout's entries are read from
 * the stretch of time it lived (creation to last change), a bounded number of pages.
 */
import type { AuditEntry } from "../../model/audit.js";
import type { Batch, BatchRow, RowStanding } from "../../model/batch.js";
import type { Payout } from "../../model/payout.js";
import type { Stores } from "../../store/types.js";
import { rowStanding, rowsWithPayouts } from "../batch/rows.js";
import { type Asker, maySee, maySeeBatch } from "../policy.js";

const AUDIT_PAGE = 500;
/** Audit pages read at most for one payout's trail. */
const AUDIT_PAGES = 20;
/** Batches listed. */
const BATCH_LIST = 50;
/** Rows of a batch shown at most. */
const ROW_LIMIT = 2_000;

export type PayoutDetail =
  | { outcome: "found"; payout: Payout; trail: AuditEntry[]; trailComplete: boolean }
  | { outcome: "not_found" };

export async function payoutDetail(
  stores: Stores,
  asker: Asker,
  payoutId: string,
): Promise<PayoutDetail> {
  const payout = await stores.payouts.get(payoutId);
  // Someone else's payout reads as no payout: its existence is not theirs to learn.
  if (payout === null || !maySee(asker, payout)) return { outcome: "not_found" };
  const trail: AuditEntry[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    const page = await stores.audit.range({
      fromMs: payout.createdAtMs - 1_000,
      toMs: Math.max(payout.updatedAtMs, payout.settledAtMs ?? 0) + 60_000,
      limit: AUDIT_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    trail.push(...page.entries.filter((entry) => entry.payoutId === payout.id));
    after = page.next;
    pages += 1;
  } while (after !== undefined && pages < AUDIT_PAGES);
  return { outcome: "found", payout, trail, trailComplete: after === undefined };
}

export async function batchList(stores: Stores, asker: NonNullable<Asker>): Promise<Batch[]> {
  const batches = await stores.batches.list({ limit: BATCH_LIST });
  return batches.filter((batch) => maySeeBatch(asker, batch));
}

export interface BatchRowView {
  row: number;
  phone: string;
  amount: number | undefined;
  name: string | undefined;
  standing: RowStanding;
  problem: BatchRow["problem"];
  /** What the checks found wrong, as they wrote it (the row it repeats, the name found). */
  problemDetail: string | undefined;
  payoutId: string | undefined;
}

export type BatchDetail =
  | { outcome: "found"; batch: Batch; rows: BatchRowView[]; truncated: boolean }
  | { outcome: "not_found" };

/** A batch's rows with how each stands; `only` keeps those standings. */
export async function batchDetail(
  stores: Stores,
  asker: Asker,
  batchId: string,
  only?: ReadonlySet<RowStanding>,
): Promise<BatchDetail> {
  const batch = await stores.batches.get(batchId);
  if (batch === null || !maySeeBatch(asker, batch)) return { outcome: "not_found" };
  const rows: BatchRowView[] = [];
  let truncated = false;
  for await (const page of rowsWithPayouts(stores, batchId)) {
    for (const { row, payout } of page) {
      const standing = row.problem === undefined ? rowStanding(payout) : "skipped";
      if (only !== undefined && !only.has(standing)) continue;
      if (rows.length >= ROW_LIMIT) {
        truncated = true;
        break;
      }
      rows.push({
        row: row.row,
        phone: row.phone ?? row.phoneText,
        amount: row.amount,
        name: row.name ?? row.expectedName,
        standing,
        problem: row.problem,
        problemDetail: row.problemDetail,
        payoutId: payout?.id,
      });
    }
    if (truncated) break;
  }
  return { outcome: "found", batch, rows, truncated };
}
