/**
 * Reads a batch payout spreadsheet, uploaded as a CSV document, into raw rows.
 *
 * Only the file's structure is checked here; what the cells mean (a valid phone number, an amount
 * in range) is checked per row elsewhere, so cells come back as trimmed strings.
 */
import { z } from "zod";
import {
  type CsvDelimiter,
  type CsvLine,
  detectDelimiter,
  readRecords,
  rowAt,
} from "./csv-records.js";

export interface BatchFileLimits {
  maxRows: number;
  maxBytes: number;
}

export const DEFAULT_BATCH_FILE_LIMITS: BatchFileLimits = { maxRows: 1000, maxBytes: 1_000_000 };

/** One data row as typed; `row` is its row number as a spreadsheet shows it (header = row 1). */
export interface BatchFileRow {
  row: number;
  phone: string;
  amount: string;
  note?: string;
  name?: string;
}

export type BatchFileProblem =
  | { kind: "empty" }
  | { kind: "too_big"; maxBytes: number }
  /** More data rows than `maxRows`: reading stopped at the first one over. */
  | { kind: "too_many_rows"; maxRows: number }
  /** More records with only empty cells (Excel's `;;;`) than `MAX_BLANK_RECORDS`. */
  | { kind: "too_many_blank_rows"; maxBlankRows: number }
  | { kind: "bad_encoding"; row: number }
  | { kind: "not_csv"; row: number; detail: string }
  | { kind: "missing_column"; column: "phone" | "amount"; found: string[] }
  | { kind: "bad_row"; row: number; detail: string }
  /** More cells with content than the header has (an unquoted comma, most often). */
  | { kind: "extra_cells"; row: number; cells: number; headerCells: number }
  /** `5,000` unquoted in a comma-separated file: the amount `5` and a next cell `000`. */
  | { kind: "split_amount"; row: number; amount: string };

export type BatchFileResult =
  | { ok: true; rows: BatchFileRow[]; delimiter: "," | ";" }
  | { ok: false; problem: BatchFileProblem };

type Delimiter = CsvDelimiter;
type Field = "phone" | "amount" | "note" | "name";
type Step<T> = { ok: true; value: T } | { ok: false; problem: BatchFileProblem };
type Columns = { phone: number; amount: number; note?: number; name?: number };
type Line = CsvLine;

const rowSchema: z.ZodType<BatchFileRow> = z.object({
  row: z.number().int().min(2),
  phone: z.string(),
  amount: z.string(),
  note: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
});

/** Header spellings payers use, after `normalizeHeader` (English and French exports). */
const HEADER_ALIASES: ReadonlyMap<string, Field> = new Map([
  ...aliases("phone", ["phone", "phone number", "telephone", "tel", "numero", "number", "msisdn"]),
  ...aliases("amount", ["amount", "montant"]),
  ...aliases("note", ["note", "motif", "memo", "description"]),
  ...aliases("name", ["name", "nom", "recipient", "beneficiaire"]),
]);

const OPTIONAL_FIELDS = ["note", "name"] as const;

/** Headers of a column that may hold an alias instead of a number, when there is no phone column. */
const RECIPIENT_HEADERS: ReadonlySet<string> = new Set(["recipient", "beneficiaire"]);

/**
 * Records with only empty cells a file may hold. Empty lines cost the parser nothing, but a
 * record whose cell count differs from the header's costs it tens of microseconds (it builds
 * an error object it then ignores), and a megabyte of `;;;` is 250,000 of them.
 */
export const MAX_BLANK_RECORDS = 10_000;

/**
 * Reads the uploaded bytes into rows, or names the first structural problem found.
 * Never throws: whatever the payer uploaded, the answer is a `BatchFileResult`.
 * Blank lines (including Excel's `;;;`) are skipped but still counted in row numbers.
 *
 * The file is parsed a small slice at a time, giving the event loop back between slices,
 * and reading stops at the first data row over `maxRows`: a megabyte of blank or
 * one-character lines must not hold up every other chat.
 */
export async function readBatchFile(
  bytes: Uint8Array,
  limits: BatchFileLimits = DEFAULT_BATCH_FILE_LIMITS,
): Promise<BatchFileResult> {
  try {
    return await readChecked(bytes, limits);
  } catch (error) {
    // Every known failure is handled below; this net keeps a parser surprise from crashing the bot.
    const detail = error instanceof Error ? error.message : String(error);
    return fail({ kind: "not_csv", row: 1, detail: detail.slice(0, 80) });
  }
}

async function readChecked(bytes: Uint8Array, limits: BatchFileLimits): Promise<BatchFileResult> {
  if (bytes.length > limits.maxBytes) return fail({ kind: "too_big", maxBytes: limits.maxBytes });
  // Before the UTF-8 check: an uploaded .xlsx or .pdf is "not a CSV", not "save it as UTF-8".
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const before = new TextDecoder().decode(bytes.subarray(0, nul));
    return fail({ kind: "not_csv", row: rowAt(before), detail: "binary content (NUL byte)" });
  }
  const text = decodeUtf8(bytes);
  if (!text.ok) return text;
  if (text.value.trim() === "") return fail({ kind: "empty" });

  const delimiter = detectDelimiter(text.value);
  let header: Line | undefined;
  let columns: Columns | undefined;
  const rows: BatchFileRow[] = [];
  let blank = 0;
  const read = await readRecords<BatchFileProblem>(text.value, delimiter, (line) => {
    if (!line.cells.some((cell) => cell !== "")) {
      blank++;
      return blank > MAX_BLANK_RECORDS
        ? { kind: "too_many_blank_rows", maxBlankRows: MAX_BLANK_RECORDS }
        : null;
    }
    if (header === undefined || columns === undefined) {
      header = line;
      const found = findColumns(line.cells);
      if (!found.ok) return found.problem;
      columns = found.value;
      return null;
    }
    if (rows.length === limits.maxRows) return { kind: "too_many_rows", maxRows: limits.maxRows };
    const row = toRow(line, columns, header.cells.length, delimiter);
    if (!row.ok) return row.problem;
    rows.push(row.value);
    return null;
  });
  if (!read.ok) return fail({ kind: "not_csv", row: read.row, detail: read.detail });
  if (read.stoppedWith !== null) return fail(read.stoppedWith);
  if (rows.length === 0) return fail({ kind: "empty" });
  return { ok: true, rows, delimiter };
}

/**
 * Decodes strict UTF-8, dropping a leading BOM. On failure, decodes line by line to find the
 * first bad line: splitting at `\n` is safe because that byte never occurs inside a multi-byte
 * UTF-8 sequence.
 */
function decodeUtf8(bytes: Uint8Array): Step<string> {
  try {
    return { ok: true, value: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(0x0a, start);
      const end = newline === -1 ? bytes.length : newline + 1;
      try {
        strict.decode(bytes.subarray(start, end));
      } catch {
        const before = new TextDecoder().decode(bytes.subarray(0, start));
        return fail({ kind: "bad_encoding", row: rowAt(before) });
      }
      start = end;
    }
    return fail({ kind: "bad_encoding", row: 1 });
  }
}

/** Maps each known field to its column; the first matching column wins, unknown ones are ignored. */
function findColumns(header: string[]): Step<Columns> {
  const found = new Map<Field, number>();
  header.forEach((cell, index) => {
    const field = HEADER_ALIASES.get(normalizeHeader(cell));
    if (field !== undefined && !found.has(field)) found.set(field, index);
  });
  // `recipient` (`bénéficiaire`) names the payee: their name beside a phone column (as it
  // always has), or, with no phone column, a saved recipient's alias or a number.
  const recipient = header.findIndex((cell) => RECIPIENT_HEADERS.has(normalizeHeader(cell)));
  const byRecipient = !found.has("phone") && recipient >= 0;
  if (byRecipient) {
    found.set("phone", recipient);
    if (found.get("name") === recipient) {
      found.delete("name");
      const name = header.findIndex(
        (cell, index) =>
          index !== recipient && HEADER_ALIASES.get(normalizeHeader(cell)) === "name",
      );
      if (name >= 0) found.set("name", name);
    }
  }
  const phone = found.get("phone");
  const amount = found.get("amount");
  if (phone === undefined || amount === undefined) {
    const column = phone === undefined ? "phone" : "amount";
    return fail({ kind: "missing_column", column, found: header.filter((cell) => cell !== "") });
  }
  return { ok: true, value: { phone, amount, note: found.get("note"), name: found.get("name") } };
}

/** `Téléphone_Number ` → `telephone number`: case, accents and separators don't matter. */
function normalizeHeader(cell: string): string {
  return cell
    .trim()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[\s_-]+/g, " ");
}

/** Cells of three digits: what follows the comma of an unquoted `5,000`. */
const THOUSANDS = /^\d{3}$/;
const AMOUNT_HEAD = /^\d{1,3}$/;

/**
 * Turns one data line into a row; trailing empty cells beyond the header are tolerated. In a
 * comma-separated file, an amount of one to three digits followed by a cell of three digits
 * is an unquoted `5,000` split in two: never read as 5.
 */
function toRow(
  line: Line,
  columns: Columns,
  headerWidth: number,
  delimiter: Delimiter,
): Step<BatchFileRow> {
  const amountCell = line.cells[columns.amount] ?? "";
  if (delimiter === "," && AMOUNT_HEAD.test(amountCell)) {
    const groups = [amountCell];
    for (let index = columns.amount + 1; THOUSANDS.test(line.cells[index] ?? ""); index++) {
      groups.push(line.cells[index] ?? "");
    }
    if (groups.length > 1) {
      return fail({ kind: "split_amount", row: line.row, amount: groups.join(",") });
    }
  }
  const width = line.cells.findLastIndex((cell) => cell !== "") + 1;
  if (width > headerWidth) {
    return fail({ kind: "extra_cells", row: line.row, cells: width, headerCells: headerWidth });
  }
  const candidate: Record<string, unknown> = {
    row: line.row,
    phone: line.cells[columns.phone] ?? "",
    amount: amountCell,
  };
  for (const field of OPTIONAL_FIELDS) {
    const index = columns[field];
    const value = index === undefined ? "" : (line.cells[index] ?? "");
    if (value !== "") candidate[field] = value;
  }
  const parsed = rowSchema.safeParse(candidate);
  if (!parsed.success) {
    const detail = parsed.error.issues[0]?.message ?? "invalid row";
    return fail({ kind: "bad_row", row: line.row, detail });
  }
  return { ok: true, value: parsed.data };
}

function aliases(field: Field, names: string[]): [string, Field][] {
  return names.map((name) => [name, field]);
}

function fail(problem: BatchFileProblem): { ok: false; problem: BatchFileProblem } {
  return { ok: false, problem };
}
