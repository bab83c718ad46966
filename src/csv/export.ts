/**
 * Writes an export page by page: each page is read from the store, turned into rows and
 * streamed to the file before the next is read, and the event loop is given back between
 * pages, so a large export holds neither the memory nor the other users' updates. Stops at
 * `maxRows` (the file then says less than the period holds, and the result says so).
 */
import { setImmediate as yieldToOthers } from "node:timers/promises";
import type { Locale } from "../model/locale.js";
import { type Cell, type CsvColumn, CsvFile } from "./file.js";

/** Where an export's rows come from. */
export interface ExportSource<T, K extends string> {
  columns: CsvColumn<K>[];
  /** One page, after the page that gave `after` as its `next`. */
  page(after: string | undefined): Promise<{ items: T[]; next?: string }>;
  /** The rows of one page's items. */
  rows(items: readonly T[]): Promise<Array<Record<K, Cell>>>;
}

export type ExportResult =
  /** Nothing in the period: no file. */
  | { kind: "empty"; pages: number }
  | {
      kind: "file";
      /** On disk until `discard()`. */
      file: CsvFile<string>;
      rows: number;
      /** Pages read from the store. */
      pages: number;
      /** True when the period holds more than `maxRows`: the file has the first ones. */
      truncated: boolean;
    };

/** Whether any page from `after` on has an item (pages of expired records can be empty). */
async function hasMore<T, K extends string>(
  source: ExportSource<T, K>,
  after: string,
): Promise<boolean> {
  let next: string | undefined = after;
  while (next !== undefined) {
    const page = await source.page(next);
    if (page.items.length > 0) return true;
    next = page.next;
  }
  return false;
}

/** The most rows an export writes. */
export const MAX_EXPORT_ROWS = 100_000;

export async function writeExport<T, K extends string>(
  source: ExportSource<T, K>,
  options: { fileName: string; locale: Locale; maxRows?: number },
): Promise<ExportResult> {
  const maxRows = options.maxRows ?? MAX_EXPORT_ROWS;
  const file = await CsvFile.open(options.fileName, source.columns, options.locale);
  let pages = 0;
  let truncated = false;
  try {
    let after: string | undefined;
    do {
      const page = await source.page(after);
      pages += 1;
      const room = maxRows - file.rows;
      const rows = await source.rows(page.items);
      for (const row of rows.slice(0, room)) await file.write(row);
      after = page.next;
      if (rows.length > room) truncated = true;
      // Full to the row: cut only if some page after this one has something.
      else if (file.rows >= maxRows && after !== undefined)
        truncated = await hasMore(source, after);
      if (file.rows >= maxRows) break;
      await yieldToOthers();
    } while (after !== undefined);
    await file.close();
  } catch (error) {
    await file.discard();
    throw error;
  }
  if (file.rows === 0) {
    await file.discard();
    return { kind: "empty", pages };
  }
  return { kind: "file", file, rows: file.rows, pages, truncated };
}
