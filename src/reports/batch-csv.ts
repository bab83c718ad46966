/**
 * A batch's files, in the reader's language: the preview (every row, its registered name
 * and what will happen to it) and the results (every row, its payment and how it ended).
 * Written with CsvFile: BOM, the reader's separator, formula injection defused.
 */

import type { Translate } from "../i18n.js";
import { type Batch, type BatchRow, rowPayoutId } from "../model/batch.js";
import type { Locale } from "../model/locale.js";
import type { Payout } from "../model/payout.js";
import { formatPhone } from "../model/phone.js";
import type { PayoutStore } from "../store/types.js";
import { BATCH_CSV_HEADER_KEY, ROW_REASON_KEY } from "./batch-keys.js";
import { type CsvColumn, CsvFile } from "./csv-file.js";

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

/** Writes the rows to a new file; the caller sends it and then discards it. */
async function writeRows(
  fileName: string,
  t: Translate,
  locale: Locale,
  rows: AsyncIterable<BatchRow[]>,
  cells: (row: BatchRow) => Promise<Partial<Record<Column, string | number>>>,
): Promise<CsvFile<Column>> {
  const file = await CsvFile.open(fileName, columns(t), locale);
  try {
    for await (const page of rows) {
      for (const row of page) {
        await file.write({
          fee: "",
          status: "",
          payment_id: "",
          ...baseCells(t, row),
          ...(await cells(row)),
        });
      }
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
  rows: AsyncIterable<BatchRow[]>,
): Promise<CsvFile<Column>> {
  return writeRows(`batch-${batch.id}-preview.csv`, t, batch.locale, rows, async (row) => ({
    status: t.plain(row.problem === undefined ? "batch.outcome.pay" : "batch.outcome.skip"),
  }));
}

/** The results: how every row ended, with its payment id and fee. */
export function writeResults(
  batch: Batch,
  t: Translate,
  rows: AsyncIterable<BatchRow[]>,
  payouts: PayoutStore,
  standing: (payout: Payout | null) => string,
): Promise<CsvFile<Column>> {
  return writeRows(`batch-${batch.id}-results.csv`, t, batch.locale, rows, async (row) => {
    if (row.problem !== undefined) return { status: t.plain("batch.outcome.skipped") };
    const payout = await payouts.get(rowPayoutId(batch.id, row.row));
    const status = standing(payout);
    return {
      status,
      fee: payout?.fee ?? "",
      payment_id: payout?.paymentId ?? "",
      reason:
        payout?.apiRemark ??
        payout?.errorMessage ??
        (payout && payout.state !== "awaiting_confirmation" ? "" : t.plain("batch.reason.stopped")),
    };
  });
}
