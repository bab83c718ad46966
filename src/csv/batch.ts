/**
 * A batch's files, in the reader's language: the preview (every row, its registered name
 * and what will happen to it) and the results (every row, its payment and how it ended).
 * Written with CsvFile: BOM, the reader's separator, formula injection defused.
 */

import type { Translate } from "../i18n.js";
import type { Batch, BatchRow, RowStanding } from "../model/batch.js";
import type { Locale } from "../model/locale.js";
import { formatAmount } from "../model/money.js";
import { chargedFee, type Payout } from "../model/payout.js";
import { formatPhone } from "../model/phone.js";
import {
  BATCH_CSV_HEADER_KEY,
  BATCH_STATE_KEY,
  PAYOUT_STATE_WORD_KEY,
  ROW_OUTCOME_KEY,
  ROW_REASON_KEY,
} from "./batch-keys.js";
import { type Cell, type CsvColumn, CsvFile } from "./file.js";

const COLUMNS = [
  "row",
  "phone",
  "name",
  "expected",
  "amount",
  "fee",
  "note",
  "status",
  "payment_id",
  "reason",
] as const;
type Column = (typeof COLUMNS)[number];

function columns(t: Translate): CsvColumn<Column>[] {
  return COLUMNS.map((key) => ({ key, header: t.plain(BATCH_CSV_HEADER_KEY[key]) }));
}

/** Staff members' names by user id (what a repeated payout says of who made it). */
export type StaffNames = ReadonlyMap<number, string>;

/**
 * What a row repeats, in words: how much, when, by whom, how it stands. Shown as the row's
 * reason while it is left out, and kept in the files once the payer included it.
 */
export function repeatText(t: Translate, row: BatchRow, names: StaffNames): string {
  const { repeats } = row;
  if (repeats === undefined) return "";
  const state =
    repeats.source === "payout"
      ? t.plain(PAYOUT_STATE_WORD_KEY[repeats.state])
      : t.plain("batch.earlier.in_batch", {
          id: repeats.batchId,
          row: repeats.row,
          state: t.plain(BATCH_STATE_KEY[repeats.state]),
        });
  return t.plain("batch.reason.recent_duplicate", {
    amount: formatAmount(row.amount ?? 0, t.locale),
    time: t.time(repeats.atMs),
    name: names.get(repeats.by) ?? t.plain("history.user_id", { id: repeats.by }),
    state,
  });
}

/** Why a row is not paid, in words. */
export function rowReason(t: Translate, row: BatchRow, names: StaffNames = new Map()): string {
  if (row.problem === "recent_duplicate") return repeatText(t, row, names);
  if (row.problem === undefined) {
    return row.repeats
      ? t.plain("batch.reason.included", { repeat: repeatText(t, row, names) })
      : "";
  }
  if (row.problem === "duplicate") {
    return t.plain("batch.reason.duplicate", { detail: row.problemDetail ?? "" });
  }
  if (row.problem === "unknown_alias") {
    return t.plain("batch.reason.unknown_alias", { alias: row.problemDetail ?? row.phoneText });
  }
  if (row.problem === "name_mismatch") {
    return t.plain("batch.reason.name_mismatch", {
      name: row.name ?? "",
      expected: row.expectedName ?? "",
    });
  }
  return t.plain(ROW_REASON_KEY[row.problem]);
}

function baseCells(t: Translate, row: BatchRow, names: StaffNames) {
  return {
    row: row.row,
    phone: row.phone ? formatPhone(row.phone) : row.phoneText,
    name: row.name ?? "",
    expected: row.expectedName ?? "",
    amount: row.amount ?? row.amountText,
    note: row.note ?? "",
    reason: rowReason(t, row, names),
  };
}

/** Writes a row per item to a new file; the caller sends it and then discards it. */
async function writeRows<T>(
  fileName: string,
  t: Translate,
  locale: Locale,
  pages: AsyncIterable<T[]>,
  cells: (item: T) => Record<Column, Cell>,
): Promise<CsvFile<Column>> {
  const file = await CsvFile.open(fileName, columns(t), locale);
  try {
    for await (const page of pages) {
      for (const item of page) await file.write(cells(item));
    }
    await file.close();
    return file;
  } catch (error) {
    await file.discard();
    throw error;
  }
}

/** The preview: what will happen to every row. */
export function writePreview(
  batch: Batch,
  t: Translate,
  pages: AsyncIterable<BatchRow[]>,
  names: StaffNames,
): Promise<CsvFile<Column>> {
  return writeRows(`batch-${batch.id}-preview.csv`, t, batch.locale, pages, (row) => ({
    ...baseCells(t, row, names),
    fee: "",
    payment_id: "",
    status: t.plain(row.problem === undefined ? "batch.outcome.pay" : "batch.outcome.skip"),
  }));
}

/** A row as it ended: its payout (none for a row not paid) and how it stands. */
export interface RowResult {
  row: BatchRow;
  payout: Payout | null;
  standing: RowStanding;
}

/** The results: how every row ended, with its payment id and fee. */
export function writeResults(
  batch: Batch,
  t: Translate,
  pages: AsyncIterable<RowResult[]>,
  names: StaffNames,
): Promise<CsvFile<Column>> {
  return writeRows(`batch-${batch.id}-results.csv`, t, batch.locale, pages, (result) => {
    const { row, payout, standing } = result;
    const base = baseCells(t, row, names);
    // A payable row that was never claimed was stopped before it was sent.
    const unsent = row.problem === undefined && standing === "skipped";
    return {
      ...base,
      status: t.plain(ROW_OUTCOME_KEY[standing]),
      fee: payout ? chargedFee(payout) : undefined,
      payment_id: payout?.paymentId,
      reason: unsent
        ? t.plain(ROW_REASON_KEY.stopped)
        : (payout?.apiRemark ?? payout?.errorMessage ?? base.reason),
    };
  });
}
