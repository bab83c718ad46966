/**
 * The payouts and collections created in a period, as CSV rows: one per payout, oldest
 * first. The number is written in full (237 and 9 digits, as the API and the merchant
 * portal write it) so each row can be matched with the portal's; times are in TIME_ZONE.
 * Values are codes that do not depend on the reader's language (`disbursement`,
 * `success`, `mtn`); only the first line is translated.
 */
import type { MessageKey } from "../i18n.js";
import { chargedFee, type Payout } from "../model/payout.js";
import type { Stores } from "../store/types.js";
import { localDateTime } from "../time.js";
import type { ExportSource } from "./export.js";
import type { Cell } from "./file.js";
import { NameBook } from "./names.js";

export const PAYOUT_COLUMNS = [
  "created",
  "kind",
  "initiator",
  "approver",
  "recipient",
  "number",
  "operator",
  "amount",
  "fee",
  "status",
  "paymentId",
  "note",
  "settledAt",
  /** The schedule a payout is a run of (empty for any other). */
  "schedule",
] as const;
export type PayoutColumn = (typeof PAYOUT_COLUMNS)[number];

/** Payouts read from the store per page. */
/** The text of each column's header, in the reader's language (/export and the Mini App). */
export const PAYOUT_HEADER_KEYS = {
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
  schedule: "export.column.schedule",
} as const satisfies Record<PayoutColumn, MessageKey>;

export const EXPORT_PAGE_SIZE = 500;

export function payoutSource(options: {
  stores: Stores;
  window: { fromMs: number; toMs: number };
  timeZone: string;
  /** What the first line says for each column, in the reader's language. */
  header: (column: PayoutColumn) => string;
  pageSize?: number;
}): ExportSource<Payout, PayoutColumn> {
  const { stores, window, timeZone, header } = options;
  const names = new NameBook(stores.profiles);
  const time = (ms: number | undefined) =>
    ms === undefined ? undefined : localDateTime(ms, timeZone);
  return {
    columns: PAYOUT_COLUMNS.map((key) => ({ key, header: header(key) })),
    page: (after) =>
      stores.payouts.listCreated({
        ...window,
        limit: options.pageSize ?? EXPORT_PAGE_SIZE,
        ...(after === undefined ? {} : { after }),
      }),
    async rows(items) {
      await names.learn(
        items.flatMap((payout) =>
          payout.approvedBy === undefined
            ? [payout.initiatorId]
            : [payout.initiatorId, payout.approvedBy],
        ),
      );
      return items.map(
        (payout): Record<PayoutColumn, Cell> => ({
          created: time(payout.createdAtMs),
          kind: payout.kind,
          initiator: names.of(payout.initiatorId),
          approver: names.of(payout.approvedBy),
          recipient: payout.recipientName,
          number: payout.phone,
          operator: payout.operator,
          amount: payout.amount,
          fee: chargedFee(payout),
          status: payout.state,
          paymentId: payout.paymentId,
          note: payout.note,
          settledAt: time(payout.settledAtMs),
          schedule: payout.scheduleId,
        }),
      );
    },
  };
}
