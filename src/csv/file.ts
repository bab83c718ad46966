/**
 * A CSV file written row by row to a temporary file, as Excel opens it: a UTF-8 BOM (so
 * accents read right), `;` between cells for French readers (their Excel's list
 * separator) and `,` otherwise, CRLF line ends, and formula injection defused: a cell that
 * starts with `=`, `+`, `-`, `@`, a tab or a CR gets a leading `'` (csv-stringify's
 * `escape_formulas`; numbers are left alone). Rows stream to disk with backpressure, so a
 * file of 100,000 rows never sits in memory.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import type { Locale } from "../model/locale.js";

/** A cell: text, a whole number, or nothing. */
export type Cell = string | number | undefined;

export interface CsvColumn<K extends string> {
  key: K;
  /** What the first line says, in the reader's language. */
  header: string;
}

/** The cell separator Excel expects in the reader's language. */
export function delimiterFor(locale: Locale): ";" | "," {
  return locale === "fr" ? ";" : ",";
}

export class CsvFile<K extends string> {
  readonly path: string;
  readonly #dir: string;
  readonly #stringifier: ReturnType<typeof stringify>;
  readonly #written: Promise<void>;
  #rows = 0;

  private constructor(dir: string, fileName: string, columns: CsvColumn<K>[], locale: Locale) {
    this.#dir = dir;
    this.path = join(dir, fileName);
    this.#stringifier = stringify({
      bom: true,
      header: true,
      columns: columns.map((column) => ({ key: column.key, header: column.header })),
      delimiter: delimiterFor(locale),
      record_delimiter: "windows",
      escape_formulas: true,
    });
    this.#written = pipeline(this.#stringifier, createWriteStream(this.path));
    // Awaited in close(); an early failure must not go unhandled meanwhile.
    this.#written.catch(() => {});
  }

  /** Opens `fileName` in a directory of its own under the system's temporary directory. */
  static async open<K extends string>(
    fileName: string,
    columns: CsvColumn<K>[],
    locale: Locale,
  ): Promise<CsvFile<K>> {
    const dir = await mkdtemp(join(tmpdir(), "payout-bot-export-"));
    return new CsvFile(dir, fileName, columns, locale);
  }

  get rows(): number {
    return this.#rows;
  }

  /** Writes a row; waits while the disk is behind. */
  async write(row: Readonly<Record<K, Cell>>): Promise<void> {
    this.#rows += 1;
    if (!this.#stringifier.write(row)) await once(this.#stringifier, "drain");
  }

  /** Ends the file and waits until it is all on disk. */
  async close(): Promise<void> {
    this.#stringifier.end();
    await this.#written;
  }

  /** Removes the file and its directory (also after a failure). */
  async discard(): Promise<void> {
    this.#stringifier.destroy();
    await this.#written.catch(() => {});
    await rm(this.#dir, { recursive: true, force: true });
  }
}
