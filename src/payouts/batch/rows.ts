/**
 * The batch worker's row work that stands on its own: a row's registered name looked up
 * (or why it will not be paid), a rate-limit slot that leaves a share of the limit to
 * interactive /pay, running work a few rows at a time, a row's payout, and how the rows
 * stand.
 */

import type { Actor } from "../../model/audit.js";
import {
  type Batch,
  type BatchRow,
  type RowStanding,
  rowPayoutId,
  standingOfState,
} from "../../model/batch.js";
import type { Payout } from "../../model/payout.js";
import { cleanName } from "../../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
  type PaymentOperation,
  RateLimitedError,
} from "../../payments/errors.js";
import { PayoutExistsError } from "../../store/errors.js";
import type { Stores } from "../../store/types.js";
import type { Lookups } from "../lookups.js";
import type { PaymentGateway, StepContext } from "../types.js";
import { namesMatch, type PayableRow } from "./checks.js";
import type { KeepAlive } from "./lease.js";

/** Rows read from the store at a time. */
const ROW_PAGE = 200;

export interface LookupDeps {
  lookups: Lookups;
  gateway: PaymentGateway;
  /** Slots of each window left to interactive /pay. */
  leave: number;
  /** Called now and then while waiting for a slot (keeps the batch's lease); may throw. */
  keepAlive?: KeepAlive;
}

/**
 * A row's registered name, looked up within the rate limit; or why it will not be paid.
 * Our own rate limit is never a reason: the look-up waits for a slot as long as the window
 * needs, and a RateLimitedError (the client closing, a retry's bounded wait) is thrown, so
 * the row is looked up again in a later round rather than skipped.
 */
export async function lookUpRow(row: BatchRow, deps: LookupDeps): Promise<BatchRow> {
  if (row.checked || row.phone === undefined || row.operator === undefined) return row;
  const { lookups, gateway } = deps;
  try {
    // Batch work: a refresh of the availability leaves the interactive share too.
    if (!(await lookups.isOperational(row.operator, "disbursement", { background: true }))) {
      return { ...row, checked: true, problem: "operator_unavailable" };
    }
    const slotTaken = await takeBatchSlot(gateway, "getUserInfo", deps.leave, deps.keepAlive);
    const name = cleanName(await gateway.getUserInfo(row.phone, { slotTaken }));
    if (name === "") return { ...row, checked: true, problem: "no_account" };
    const named = { ...row, checked: true, name };
    if (row.expectedName !== undefined && !namesMatch(row.expectedName, name)) {
      return { ...named, problem: "name_mismatch" };
    }
    return named;
  } catch (error) {
    if (error instanceof PaymentApiError && error.statusCode === 404) {
      return { ...row, checked: true, problem: "no_account" };
    }
    if (error instanceof LimiterUnavailableError || error instanceof RateLimitedError) throw error;
    if (!(error instanceof PaymentClientError)) throw error;
    return { ...row, checked: true, problem: "lookup_failed", problemDetail: error.message };
  }
}

/**
 * Waits for a rate-limit slot for `operation` that leaves `leave` of the window to
 * interactive /pay, as long as the window needs (calling `keepAlive` meanwhile): true once
 * taken (the request then leaves at once), false when the gateway has no such slots (it
 * then waits for one of its own).
 */
export async function takeBatchSlot(
  gateway: PaymentGateway,
  operation: PaymentOperation,
  leave: number,
  keepAlive?: KeepAlive,
): Promise<boolean> {
  if (!gateway.waitSlot) return false;
  await gateway.waitSlot(operation, leave, keepAlive);
  return true;
}

/** `work` on every item, `concurrency` at a time; the answers in the items' order. */
export async function inPool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** How a payable row stands, from its payout (none, or never claimed: it was not paid). */
export function rowStanding(payout: Payout | null): RowStanding {
  return standingOfState(payout?.state);
}

/** A batch's rows, in order, a page at a time. */
export async function* rowPages(stores: Stores, batchId: string): AsyncGenerator<BatchRow[]> {
  for (let from = 0; ; from += ROW_PAGE) {
    const page = await stores.batches.rows(batchId, from, ROW_PAGE);
    if (page.length > 0) yield page;
    if (page.length < ROW_PAGE) return;
  }
}

/** Every row of a batch, in order. */
export async function allRows(stores: Stores, batchId: string): Promise<BatchRow[]> {
  const rows: BatchRow[] = [];
  for await (const page of rowPages(stores, batchId)) rows.push(...page);
  return rows;
}

/** Each row with its payout (null for a row with a problem, or none yet), a page at a time. */
export async function* rowsWithPayouts(
  stores: Stores,
  batchId: string,
): AsyncGenerator<Array<{ row: BatchRow; payout: Payout | null }>> {
  for await (const page of rowPages(stores, batchId)) {
    // One page's payouts read together: one flight of requests, not one round trip each.
    const payouts = await Promise.all(
      page.map((row) =>
        row.problem === undefined ? stores.payouts.get(rowPayoutId(batchId, row.row)) : null,
      ),
    );
    yield page.map((row, index) => ({ row, payout: payouts[index] ?? null }));
  }
}

/** A row's payout not claimed (the worker died before) stays claimable this long. */
const ROW_CLAIMABLE_MS = 3_600_000;

/** The row's payout: a new one, or the one stored before (after a restart). */
export async function rowPayoutOf(
  context: StepContext,
  batch: Batch,
  row: PayableRow,
  actor: Actor,
): Promise<Payout> {
  const { stores, now } = context;
  const nowMs = now();
  const payout: Payout = {
    id: rowPayoutId(batch.id, row.row),
    kind: "disbursement",
    state: "awaiting_confirmation",
    phone: row.phone,
    operator: row.operator,
    recipientName: row.name ?? "",
    amount: row.amount,
    ...(row.note ? { note: row.note } : {}),
    initiatorId: batch.initiatorId,
    chatId: batch.chatId,
    locale: batch.locale,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + ROW_CLAIMABLE_MS,
    batchId: batch.id,
    // A scheduled batch's run: /export shows its schedule, as for a scheduled payout.
    ...(batch.run ? { scheduleId: batch.run.scheduleId } : {}),
  };
  try {
    await stores.payouts.create(payout, { actor });
    return payout;
  } catch (error) {
    if (!(error instanceof PayoutExistsError)) throw error;
    // Stored before this worker (or one that died) got here: as it stands now.
    return (await stores.payouts.get(payout.id)) ?? payout;
  }
}
