/**
 * Reading CSV text without holding up the event loop: the separator a file uses, the
 * spreadsheet row a position falls on, and the records fed to csv-parse a slice at a time.
 */
import { performance } from "node:perf_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";
import { CsvError, type Info, parse } from "csv-parse";

export type CsvDelimiter = "," | ";";

/** A record with its spreadsheet row (the first record is row 1; a quoted line break stays in its row). */
export interface CsvLine {
  row: number;
  cells: string[];
}

/** Every record visited (`stoppedWith` null), the visitor's reason to stop, or where the CSV broke. */
export type ReadRecords<T> =
  | { ok: true; stoppedWith: T | null }
  | { ok: false; row: number; detail: string };

/** How much text the parser takes at once: a slice of the worst lines costs a few ms. */
const SLICE_CHARS = 256;
/** Give the event loop back once a run of slices has taken this long. */
const YIELD_AFTER_MS = 4;

/**
 * Feeds `text` to csv-parse a slice at a time, yielding to the event loop between runs of
 * slices, and hands each record (with its spreadsheet row) to `visit` until it names a
 * problem. Empty lines are skipped by the parser itself (they cost nothing) but still
 * counted in the rows.
 */
export async function readRecords<T>(
  text: string,
  delimiter: CsvDelimiter,
  visit: (line: CsvLine) => T | null,
): Promise<ReadRecords<T>> {
  const parser = parse({
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    trim: true,
    skip_empty_lines: true,
    info: true,
  });
  let stoppedWith: T | null = null;
  parser.on("data", ({ record, info }: { record: string[]; info: Info }) => {
    if (stoppedWith !== null) return;
    // A record's spreadsheet row: the records so far (this one included) and the empty lines.
    stoppedWith = visit({ row: info.records + info.empty_lines, cells: record });
  });
  // A failure is kept rather than thrown: csv-parse reports it as an event, perhaps while
  // this function is between slices.
  let failure: unknown = null;
  parser.on("error", (error) => {
    failure ??= error;
  });
  const finished = new Promise<void>((resolve) => {
    parser.on("end", resolve);
    parser.on("close", resolve);
  });
  try {
    let sliceStart = performance.now();
    for (
      let start = 0;
      start < text.length && stoppedWith === null && failure === null;
      start += SLICE_CHARS
    ) {
      parser.write(text.slice(start, start + SLICE_CHARS));
      if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
    }
    if (stoppedWith === null && failure === null) {
      parser.end();
      await finished;
    }
  } finally {
    parser.destroy();
  }
  if (failure !== null && stoppedWith === null) {
    // csv-parse counts the records it completed before failing, blank lines included.
    const row = failure instanceof CsvError ? rowOfError(failure) : 1;
    return { ok: false, row, detail: shortDetail(failure) };
  }
  return { ok: true, stoppedWith };
}

/** The row of the record csv-parse was reading when it failed. */
function rowOfError(error: CsvError): number {
  const records = typeof error.records === "number" ? error.records : 0;
  const empty = typeof error.empty_lines === "number" ? error.empty_lines : 0;
  return records + empty + 1;
}

/**
 * Picks `,` or `;` by which occurs more often, outside quotes, on the header line (the first line
 * with content); a tie means `,`. Excel's French export uses `;` because `,` is the decimal mark.
 */
export function detectDelimiter(text: string): CsvDelimiter {
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
export function rowAt(text: string): number {
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

/** csv-parse messages read `Quote Not Closed: the parsing is finished…`; keep the headline. */
function shortDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split(":")[0] ?? message).trim().slice(0, 80);
}
