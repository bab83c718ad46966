/**
 * The Mini App's "Export CSV" of a filtered History view: the same columns, cell rules and
 * file format as `/export` (payout-csv.ts, csv-file.ts), its rows the payouts the filter
 * found (oldest first, as /export writes them) instead of a whole period.
 */
import { readFile } from "node:fs/promises";
import { translator } from "../i18n.js";
import type { Locale } from "../model/locale.js";
import type { Payout } from "../model/payout.js";
import type { Stores } from "../store/types.js";
import { writeExport } from "./export.js";
import { EXPORT_PAGE_SIZE, PAYOUT_HEADER_KEYS, payoutSource } from "./payouts.js";

/** The CSV text of `items` (newest first, as History shows them), or null when none. */
export async function historyCsv(options: {
  stores: Stores;
  items: readonly Payout[];
  locale: Locale;
  timeZone: string;
  fileName: string;
}): Promise<{ text: string; rows: number } | null> {
  const t = translator(options.locale, options.timeZone);
  const oldestFirst = [...options.items].reverse();
  const source = payoutSource({
    stores: options.stores,
    window: { fromMs: 0, toMs: 0 },
    timeZone: options.timeZone,
    header: (column) => t.plain(PAYOUT_HEADER_KEYS[column]),
  });
  const result = await writeExport(
    {
      ...source,
      async page(after) {
        const from = after === undefined ? 0 : Number(after);
        const to = from + EXPORT_PAGE_SIZE;
        const items = oldestFirst.slice(from, to);
        return to < oldestFirst.length ? { items, next: String(to) } : { items };
      },
    },
    { fileName: options.fileName, locale: options.locale },
  );
  if (result.kind === "empty") return null;
  try {
    return { text: await readFile(result.file.path, "utf8"), rows: result.rows };
  } finally {
    await result.file.discard();
  }
}
