/** The message keys of batch words, written out so the catalogs' checks can see them. */
import type { MessageKey } from "../i18n.js";
import type { BatchState, RowProblem, RowStanding } from "../model/batch.js";
import type { PayoutState } from "../model/lifecycle.js";

export const BATCH_STATE_KEY: Record<BatchState, MessageKey> = {
  checking: "batch.state.checking",
  ready: "batch.state.ready",
  awaiting_approval: "batch.state.awaiting_approval",
  running: "batch.state.running",
  sent: "batch.state.sent",
  done: "batch.state.done",
  cancelled: "batch.state.cancelled",
  rejected: "batch.state.rejected",
  scheduled: "batch.state.scheduled",
};

export const ROW_REASON_KEY: Record<RowProblem, MessageKey> = {
  bad_phone: "batch.reason.bad_phone",
  unknown_alias: "batch.reason.unknown_alias",
  bad_amount: "batch.reason.bad_amount",
  no_account: "batch.reason.no_account",
  operator_unavailable: "batch.reason.operator_unavailable",
  duplicate: "batch.reason.duplicate",
  recent_duplicate: "batch.reason.recent_duplicate",
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

/** A payout's state in the words of a batch file (what a row repeats). */
export const PAYOUT_STATE_WORD_KEY: Record<PayoutState, MessageKey> = {
  awaiting_confirmation: "batch.earlier.awaiting_confirmation",
  awaiting_approval: "batch.earlier.awaiting_approval",
  submitting: "batch.earlier.sent",
  pending: "batch.earlier.sent",
  unknown: "batch.earlier.unknown",
  cancelled: "batch.earlier.not_paid",
  expired: "batch.earlier.not_paid",
  rejected: "batch.earlier.not_paid",
  rejected_by_api: "batch.earlier.not_paid",
  success: "batch.earlier.success",
  failed: "batch.earlier.not_paid",
  canceled: "batch.earlier.not_paid",
};
