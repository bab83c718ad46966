/**
 * A batch's files, in the reader's language: the preview (every row, its registered name
 * and what will happen to it) and the results (every row, its payment and how it ended).
 * Written with CsvFile: BOM, the reader's separator, formula injection defused.
 */

import type { Translate } from "../i18n.js";
import type { Batch, BatchRow, RowStanding } from "../model/batch.js";
import type { Locale } from "../model/locale.js";
import { chargedFee, type Payout } from "../model/payout.js";
import { formatPhone } from "../model/phone.js";
import { BATCH_CSV_HEADER_KEY, ROW_OUTCOME_KEY, ROW_REASON_KEY } from "./batch-keys.js";
import { type Cell, type CsvColumn, CsvFile } from "./csv-file.js";

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

/** Why a row is not paid, in words. */
export function rowReason(t: Translate, row: BatchRow): string {
  if (row.problem === undefined) return "";
  if (row.problem === "duplicate") {
    return t.plain("batch.reason.duplicate", { detail: row.problemDetail ?? "" });
  }
  if (row.problem === "name_mismatch") {
    return t.plain("batch.reason.name_mismatch", {
      name: row.name ?? "",
      expected: row.expectedName ?? "",
    });
  }
  return t.plain(ROW_REASON_KEY[row.problem]);
}

function baseCells(t: Translate, row: BatchRow) {
  return {
    row: row.row,
    phone: row.phone ? formatPhone(row.phone) : row.phoneText,
    name: row.name ?? "",
    expected: row.expectedName ?? "",
    amount: row.amount ?? row.amountText,
    note: row.note ?? "",
    reason: rowReason(t, row),
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
): Promise<CsvFile<Column>> {
  return writeRows(`batch-${batch.id}-preview.csv`, t, batch.locale, pages, (row) => ({
    ...baseCells(t, row),
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
): Promise<CsvFile<Column>> {
  return writeRows(`batch-${batch.id}-results.csv`, t, batch.locale, pages, (result) => {
    const { row, payout, standing } = result;
    const base = baseCells(t, row);
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
