/** The message keys of batch words, written out so the catalogs' checks can see them. */
import type { MessageKey } from "../i18n.js";
import type { BatchState, RowProblem, RowStanding } from "../model/batch.js";

export const BATCH_STATE_KEY: Record<BatchState, MessageKey> = {
  checking: "batch.state.checking",
  ready: "batch.state.ready",
  running: "batch.state.running",
  sent: "batch.state.sent",
  done: "batch.state.done",
  cancelled: "batch.state.cancelled",
};

export const ROW_REASON_KEY: Record<RowProblem, MessageKey> = {
  bad_phone: "batch.reason.bad_phone",
  bad_amount: "batch.reason.bad_amount",
  no_account: "batch.reason.no_account",
  operator_unavailable: "batch.reason.operator_unavailable",
  duplicate: "batch.reason.duplicate",
  name_mismatch: "batch.reason.name_mismatch",
  lookup_failed: "batch.reason.lookup_failed",
  over_limit: "batch.reason.over_limit",
  stopped: "batch.reason.stopped",
  not_allowed: "batch.reason.not_allowed",
};

export const ROW_OUTCOME_KEY: Record<RowStanding, MessageKey> = {
  paid: "batch.outcome.paid",
  failed: "batch.outcome.failed",
  pending: "batch.outcome.pending",
  unknown: "batch.outcome.unknown",
  skipped: "batch.outcome.skipped",
};

export const BATCH_CSV_HEADER_KEY = {
  row: "batch.csv.row",
  phone: "batch.csv.phone",
  name: "batch.csv.name",
  expected: "batch.csv.expected",
  amount: "batch.csv.amount",
  fee: "batch.csv.fee",
  note: "batch.csv.note",
  status: "batch.csv.status",
  payment_id: "batch.csv.payment_id",
  reason: "batch.csv.reason",
} as const satisfies Record<string, MessageKey>;
