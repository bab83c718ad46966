/**
 * The Mini App's "Export CSV" of a filtered History view: the same columns, cell rules and
 * file format as `/export` (payout-csv.ts, csv-file.ts), its rows the payouts the filter
 * found (oldest first, as /export writes them) instead of a whole period.
 */
import { readFile } from "node:fs/promises";
import { type MessageKey, translator } from "../i18n.js";
import type { Locale } from "../model/locale.js";
import type { Payout } from "../model/payout.js";
import type { Stores } from "../store/types.js";
import { writeExport } from "./export.js";
import { EXPORT_PAGE_SIZE, type PayoutColumn, payoutSource } from "./payout-csv.js";

const HEADER_KEY: Record<PayoutColumn, MessageKey> = {
  created: "export.column.created",
  kind: "export.column.kind",
  initiator: "export.column.initiator",
  approver: "export.column.approver",
  recipient: "export.column.recipient",
  number: "export.column.number",
  operator: "export.column.operator",
  amount: "export.column.amount",
  fee: "export.column.fee",
  status: "export.column.status",
  paymentId: "export.column.payment_id",
  note: "export.column.note",
  settledAt: "export.column.settled_at",
};

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
    header: (column) => t.plain(HEADER_KEY[column]),
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
