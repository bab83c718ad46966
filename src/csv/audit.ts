/**
 * The audit trail of a period as CSV rows, oldest first: one per entry, with who did it
 * (id, name, role), what, to which payout or batch, the states before and after, the
 * amount, the number masked as the log keeps it (23767••••001: the audit trail never holds
 * a full number), and any other facts as JSON.
 */
import type { AuditEntry } from "../model/audit.js";
import type { Stores } from "../store/types.js";
import { localDateTime } from "../time.js";
import type { ExportSource } from "./export.js";
import type { Cell } from "./file.js";
import { NameBook } from "./names.js";
import { EXPORT_PAGE_SIZE } from "./payouts.js";

export const AUDIT_COLUMNS = [
  "time",
  "actorId",
  "actor",
  "role",
  "action",
  "payout",
  "batch",
  "from",
  "to",
  "amount",
  "number",
  "details",
] as const;
export type AuditColumn = (typeof AUDIT_COLUMNS)[number];

export function auditSource(options: {
  stores: Stores;
  window: { fromMs: number; toMs: number };
  timeZone: string;
  /** What the first line says for each column, in the reader's language. */
  header: (column: AuditColumn) => string;
  pageSize?: number;
}): ExportSource<AuditEntry, AuditColumn> {
  const { stores, window, timeZone, header } = options;
  const names = new NameBook(stores.profiles);
  return {
    columns: AUDIT_COLUMNS.map((key) => ({ key, header: header(key) })),
    async page(after) {
      const page = await stores.audit.range({
        ...window,
        limit: options.pageSize ?? EXPORT_PAGE_SIZE,
        ...(after === undefined ? {} : { after }),
      });
      return page.next === undefined
        ? { items: page.entries }
        : { items: page.entries, next: page.next };
    },
    async rows(entries) {
      await names.learn(entries.flatMap((entry) => (entry.actorId === 0 ? [] : [entry.actorId])));
      return entries.map(
        (entry): Record<AuditColumn, Cell> => ({
          time: localDateTime(entry.atMs, timeZone),
          actorId: entry.actorId,
          actor: entry.actorRole === "system" ? undefined : names.of(entry.actorId),
          role: entry.actorRole,
          action: entry.action,
          payout: entry.payoutId,
          batch: entry.batchId,
          from: entry.from,
          to: entry.to,
          amount: entry.amount,
          number: entry.phone,
          details: entry.details ? JSON.stringify(entry.details) : undefined,
        }),
      );
    },
  };
}
