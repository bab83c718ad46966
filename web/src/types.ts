/** The shapes `/app/api/` answers (see src/http/webapp/dashboard-routes.ts). */
export type Role = "admin" | "approver" | "payer" | "viewer";
export type Status = "paid" | "failed" | "pending" | "unknown" | "waiting" | "other";
export type Standing = "paid" | "failed" | "pending" | "unknown" | "skipped";

export interface Me {
  id: number;
  role: Role;
  name: string;
  language: "en" | "fr";
  /** The business this page is about, for a person who works for several. */
  merchant?: string;
  /** That business's id (a bot serving several businesses). */
  merchantId?: string;
  /** The businesses the person works for, when several: the header's switcher. */
  merchants?: Array<{ id: string; name: string }>;
}

export interface PayoutView {
  id: string;
  kind: "disbursement" | "collection";
  state: string;
  status: Status;
  phone: string;
  operator: "mtn" | "orange";
  recipientName: string;
  amount: number;
  fee?: number;
  note?: string;
  paymentId?: string;
  batchId?: string;
  initiatorId: number;
  approvedBy?: number;
  createdAtMs: number;
  settledAtMs?: number;
  /** APPROVAL_RULES: how many must sign, and who signed when. */
  signaturesNeeded?: number;
  signatures?: Array<{ userId: number; atMs: number }>;
  /** On the Approvals page: who may still sign. */
  awaited?: number[];
}

export type Names = Record<string, string>;

export interface AttentionList {
  count: number;
  items: Array<
    Pick<PayoutView, "id" | "state" | "amount" | "phone" | "recipientName" | "createdAtMs">
  >;
}

/** A period's figures (disbursements; the success rate counts every kind). */
export interface PeriodFigures {
  paidXaf: number;
  paidCount: number;
  successRate: number | null;
  failedXaf: number;
  failedCount: number;
}

export interface Overview {
  days: Array<{ day: string; mtn: number; orange: number }>;
  paidXaf: number;
  paidCount: number;
  successRate: number | null;
  feesXaf: number;
  failedXaf: number;
  failedCount: number;
  today: { paidXaf: number; paidCount: number };
  /** The 30 days before the last 30; null when nothing settled in them. */
  previous: PeriodFigures | null;
  attention: { stuck: AttentionList; unknown: AttentionList; awaitingApproval: AttentionList };
}

export interface HistoryAnswer {
  items: PayoutView[];
  total: number;
  page: number;
  pageSize: number;
  partial: boolean;
  names: Names;
}

export interface AuditView {
  atMs: number;
  actorId: number;
  actorRole: string;
  action: string;
  /** The action in the reader's words. */
  label: string;
  from?: string;
  to?: string;
}

export interface DetailAnswer {
  payout: PayoutView;
  trail: AuditView[];
  trailComplete: boolean;
  names: Names;
}

export interface BatchView {
  id: string;
  state: string;
  /** The state in the reader's words. */
  stateLabel: string;
  fileName: string;
  rowCount: number;
  createdAtMs: number;
  initiatorId: number;
}

export interface BatchRowView {
  row: number;
  phone: string;
  amount?: number;
  name?: string;
  standing: Standing;
  problem?: string;
  /** Why it was skipped, in the reader's words. */
  problemLabel?: string;
  payoutId?: string;
}

export type Recurrence =
  | { kind: "once"; date: string; time: string }
  | { kind: "monthly"; day: number | "last"; time: string }
  | { kind: "weekly"; weekday: number; time: string };

export type ScheduleState = "awaiting_approval" | "active" | "paused" | "finished" | "deleted";

/** See src/http/webapp/schedule-routes.ts. */
export interface ScheduleView {
  id: string;
  state: ScheduleState;
  recurrence: Recurrence;
  phone: string;
  operator: "mtn" | "orange";
  recipientName: string;
  aliases: string[];
  amount: number;
  note?: string;
  ownerId: number;
  createdAtMs: number;
  runCount: number;
  /** The next runs: an active one's (the first the one stored), or one waiting for approval's from now. */
  nextRuns: number[];
  pausedBecause?: "owner_not_allowed" | "staff";
  /** Whether the caller may pause, resume or delete it (its owner, or an admin). */
  mayChange: boolean;
}

export interface SchedulesAnswer {
  items: ScheduleView[];
  names: Names;
  /** TIME_ZONE: run times are shown in it. */
  timeZone: string;
}

/** See src/http/webapp/recipient-routes.ts. */
export interface RecipientView {
  alias: string;
  registeredName: string;
  /** Masked: `23767••••001`. */
  phone: string;
  operator: "mtn" | "orange";
  savedBy: number;
  savedAtMs: number;
  lastPaidAtMs?: number;
  mayForget: boolean;
}

export interface RecipientsAnswer {
  items: RecipientView[];
  total: number;
  page: number;
  pageSize: number;
  names: Names;
}
