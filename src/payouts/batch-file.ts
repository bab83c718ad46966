/**
 * Reads a batch payout spreadsheet, uploaded as a CSV document, into raw rows.
 *
 * Only the file's structure is checked here; what the cells mean (a valid phone number, an amount
 * in range) is checked per row elsewhere, so cells come back as trimmed strings.
 */
import { CsvError, parse } from "csv-parse/sync";
import { z } from "zod";

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
  | { kind: "too_many_rows"; maxRows: number; rows: number }
  | { kind: "bad_encoding"; row: number }
  | { kind: "not_csv"; row: number; detail: string }
  | { kind: "missing_column"; column: "phone" | "amount"; found: string[] }
  | { kind: "bad_row"; row: number; detail: string };

export type BatchFileResult =
  | { ok: true; rows: BatchFileRow[]; delimiter: "," | ";" }
  | { ok: false; problem: BatchFileProblem };

type Delimiter = "," | ";";
type Field = "phone" | "amount" | "note" | "name";
type Step<T> = { ok: true; value: T } | { ok: false; problem: BatchFileProblem };
type Columns = { phone: number; amount: number; note?: number; name?: number };
/** A record of the file with its spreadsheet row number. */
type Line = { row: number; cells: string[] };

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

/**
 * Reads the uploaded bytes into rows, or names the first structural problem found.
 * Never throws: whatever the payer uploaded, the answer is a `BatchFileResult`.
 * Blank lines (including Excel's `;;;`) are skipped but still counted in row numbers.
 */
export function readBatchFile(
  bytes: Uint8Array,
  limits: BatchFileLimits = DEFAULT_BATCH_FILE_LIMITS,
): BatchFileResult {
  try {
    return readChecked(bytes, limits);
  } catch (error) {
    // Every known failure is handled below; this net keeps a parser surprise from crashing the bot.
    return fail({ kind: "not_csv", row: 1, detail: shortDetail(error) });
  }
}

function readChecked(bytes: Uint8Array, limits: BatchFileLimits): BatchFileResult {
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
  const records = parseRecords(text.value, delimiter);
  if (!records.ok) return records;
  const lines = records.value.flatMap((cells, index) =>
    cells.some((cell) => cell.trim() !== "") ? [{ row: index + 1, cells: cells.map(trim) }] : [],
  );
  const [header, ...data] = lines;
  if (header === undefined || data.length === 0) return fail({ kind: "empty" });
  const columns = findColumns(header.cells);
  if (!columns.ok) return columns;
  if (data.length > limits.maxRows) {
    return fail({ kind: "too_many_rows", maxRows: limits.maxRows, rows: data.length });
  }

  const rows: BatchFileRow[] = [];
  for (const line of data) {
    const row = toRow(line, columns.value, header.cells.length);
    if (!row.ok) return row;
    rows.push(row.value);
  }
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

function parseRecords(text: string, delimiter: Delimiter): Step<string[][]> {
  try {
    // Blank lines are kept as records so that a record's index gives its spreadsheet row.
    const value = parse(text, {
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      trim: true,
    });
    return { ok: true, value };
  } catch (error) {
    // csv-parse counts the records it completed before failing, blank ones included.
    const done = error instanceof CsvError && typeof error.records === "number" ? error.records : 0;
    return fail({ kind: "not_csv", row: done + 1, detail: shortDetail(error) });
  }
}

/**
 * Picks `,` or `;` by which occurs more often, outside quotes, on the header line (the first line
 * with content); a tie means `,`. Excel's French export uses `;` because `,` is the decimal mark.
 */
function detectDelimiter(text: string): Delimiter {
  let commas = 0;
  let semicolons = 0;
  let hasContent = false;
  scanUnquoted(text, (char) => {
    if (char === ",") commas++;
    else if (char === ";") semicolons++;
    else if (char === "\n" || char === "\r") {
      if (hasContent) return true;
      commas = 0;
      semicolons = 0;
    } else if (char.trim() !== "") hasContent = true;
    return false;
  });
  return semicolons > commas ? ";" : ",";
}

/** The spreadsheet row on which `text` ends: a line break inside quotes does not start a row. */
function rowAt(text: string): number {
  let row = 1;
  scanUnquoted(text, (char, index) => {
    if (char === "\n" || (char === "\r" && text[index + 1] !== "\n")) row++;
    return false;
  });
  return row;
}

/**
 * Calls `visit` with each character outside quoted cells (opening quotes included) until it
 * returns true. Like csv-parse with `relax_quotes`, a quote opens a cell only at the cell's start,
 * so `5" screen` stays plain text.
 */
function scanUnquoted(text: string, visit: (char: string, index: number) => boolean): void {
  let quoted = false;
  let cellStart = true;
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (quoted) {
      if (char !== '"') continue;
      if (text[index + 1] === '"') index++;
      else quoted = false;
      continue;
    }
    if (visit(char, index)) return;
    if (char === '"' && cellStart) {
      quoted = true;
      cellStart = false;
    } else if (",;\r\n".includes(char)) cellStart = true;
    else if (char !== " " && char !== "\t") cellStart = false;
  }
}

/** Maps each known field to its column; the first matching column wins, unknown ones are ignored. */
function findColumns(header: string[]): Step<Columns> {
  const found = new Map<Field, number>();
  header.forEach((cell, index) => {
    const field = HEADER_ALIASES.get(normalizeHeader(cell));
    if (field !== undefined && !found.has(field)) found.set(field, index);
  });
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

/** Turns one data line into a row; trailing empty cells beyond the header are tolerated. */
function toRow(line: Line, columns: Columns, headerWidth: number): Step<BatchFileRow> {
  const width = line.cells.findLastIndex((cell) => cell !== "") + 1;
  if (width > headerWidth) {
    const detail = `${width} cells, but the header has ${headerWidth}`;
    return fail({ kind: "bad_row", row: line.row, detail });
  }
  const candidate: Record<string, unknown> = {
    row: line.row,
    phone: line.cells[columns.phone] ?? "",
    amount: line.cells[columns.amount] ?? "",
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

/** csv-parse messages read `Quote Not Closed: the parsing is finished…`; keep the headline. */
function shortDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split(":")[0] ?? message).trim().slice(0, 80);
}

function aliases(field: Field, names: string[]): [string, Field][] {
  return names.map((name) => [name, field]);
}

function trim(cell: string): string {
  return cell.trim();
}

function fail(problem: BatchFileProblem): { ok: false; problem: BatchFileProblem } {
  return { ok: false, problem };
}
