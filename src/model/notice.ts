/**
 * What people are told after the fact, not in answer to what they just did: queued in the
 * outbox (in the same atomic step as the move that calls for it, where there is one) and
 * delivered by the notifier, to whoever it concerns, each in their own language. A notice
 * names its subject; the message is written from the subject as it is when delivered (a
 * change of availability carries its facts: it is told as it happened).
 */
import { AvailabilityStatusSchema } from "./availability.js";
import {
  type PaymentType,
  PaymentTypeSchema,
  type TelecomOperator,
  TelecomOperatorSchema,
} from "./payment-terms.js";

/** Why a payout needs a person. */
export type AttentionReason =
  /** Still pending past PAYOUT_STUCK_AFTER_HOURS. */
  | "stuck"
  /** Found in `submitting` after a crash: now unknown. */
  | "stranded"
  /** Answered with a payment that is not its own: now unknown (admins only). */
  | "mismatch"
  /** Marked unknown, then its own 201 arrived after all: pending again. */
  | "accepted_late";

export const ATTENTION_REASONS: readonly AttentionReason[] = [
  "stuck",
  "stranded",
  "mismatch",
  "accepted_late",
];

/** Steps of a payout that waits for a second person (four-eyes approval). */
export type ApprovalNoticeKind =
  /** Confirmed at or over the threshold: every approver but the initiator gets a card. */
  | "approval_requested"
  /** Approved, rejected or expired: the cards say so; a rejection or expiry tells the payer. */
  | "approval_decided"
  /**
   * A signature that is not the last one the rule needs (APPROVAL_RULES): every card shows
   * who signed and who is awaited; the payer's prompt too.
   */
  | "approval_signed"
  /** An approved payout's request was answered (or not): its payer is told what came of it. */
  | "approved_outcome"
  /** The approver who rejected it gave a reason: the payer reads it. */
  | "rejection_reason";

export const APPROVAL_NOTICE_KINDS: readonly ApprovalNoticeKind[] = [
  "approval_requested",
  "approval_decided",
  "approval_signed",
  "approved_outcome",
  "rejection_reason",
];

/** What a schedule's owner (approvers, admins) are told as it goes (see model/schedule.ts). */
export const SCHEDULE_NOTICE_KINDS = [
  /** A run was held: its owner is asked to Send anyway or Skip. */
  "run_held",
  /** A run's time passed beyond SCHEDULE_CATCH_UP_HOURS: reported, never sent. */
  "run_missed",
  /** A run's payout was refused by the API or its outcome is not known. */
  "run_not_sent",
  /** A run left sending by a crash was settled (sent, or not): its owner is told which. */
  "run_interrupted",
  /** SCHEDULE_REMINDER_HOURS before a run, with Skip this run. */
  "run_reminder",
  /** Its owner lost the standing to pay: paused; the owner and the admins are told. */
  "paused",
  /** Confirmed at or over the threshold: every approver but the owner gets a card. */
  "approval_requested",
  /** Approved, rejected or expired: the owner is told, the cards say so. */
  "approval_decided",
  /** A Resume rejected or not approved in time: paused again; the owner is told, the cards say so. */
  "resume_refused",
  /** A signature short of its rule (APPROVAL_RULES): the cards show who signed. */
  "approval_signed",
] as const;
export type ScheduleNoticeKind = (typeof SCHEDULE_NOTICE_KINDS)[number];

/** What a batch's payer (and approvers) are told as it goes. */
export type BatchNoticeKind =
  /** Checked: the preview, its file, Confirm batch / Cancel. */
  | "batch_preview"
  /** The progress message is edited (checks, then payments). */
  | "batch_progress"
  /** Every row final (or stuck): the summary and the results file. */
  | "batch_done"
  /** Cancelled or expired before Confirm: the preview's buttons are taken away. */
  | "batch_decided"
  /** Confirmed at or over the threshold: every approver but the initiator gets a card. */
  | "batch_approval_requested"
  /** Approved, rejected or expired: the cards say so, and the initiator is told. */
  | "batch_approval_decided"
  /** A signature short of its rule (APPROVAL_RULES): every card shows who signed. */
  | "batch_approval_signed";

export const BATCH_NOTICE_KINDS: readonly BatchNoticeKind[] = [
  "batch_preview",
  "batch_progress",
  "batch_done",
  "batch_decided",
  "batch_approval_requested",
  "batch_approval_decided",
  "batch_approval_signed",
];

export type Notice =
  /** A payout reached a final status: its payer is told. */
  | { kind: "settled"; payoutId: string }
  | { kind: "attention"; payoutId: string; reason: AttentionReason }
  /** The day's summary for the admins (`day`: YYYY-MM-DD in TIME_ZONE). */
  | { kind: "digest"; day: string }
  /** An operation of an operator went down or came back (ALERT_CHAT_ID, else the admins). */
  | {
      kind: "availability";
      operator: TelecomOperator;
      operation: PaymentType;
      /** The status it changed to, as the API wrote it (OPERATIONAL: back up). */
      status: string;
      /** When the change was seen. */
      sinceMs: number;
    }
  | { kind: ApprovalNoticeKind; payoutId: string }
  | { kind: BatchNoticeKind; batchId: string }
  /** The events' receiver answered 410 Gone at `atMs`: events are off until resumed. */
  | { kind: "events_disabled"; atMs: number }
  /**
   * `userId` lost the standing to pay (removed from staff, or given a role that may not
   * pay) by `byUserId` (0: the STAFF setting at start) at `atMs`: they are told what of
   * theirs was cancelled, and the admins get one summary.
   */
  | { kind: "standing_lost"; userId: number; byUserId: number; atMs: number }
  /** About a schedule, or one of its runs (`runKey`: local YYYYMMDDHHMM; "-" for none). */
  | { kind: "schedule"; what: ScheduleNoticeKind; scheduleId: string; runKey: string }
  /** Too many wrong PINs locked `userId`'s step-up PIN until `untilMs`: admins alerted. */
  | { kind: "pin_locked"; userId: number; untilMs: number }
  /**
   * `byUserId` (0: the server's console, `pin-reset`) reset `userId`'s PIN at `atMs`: the
   * person and every admin are told.
   */
  | { kind: "pin_reset"; userId: number; byUserId: number; atMs: number }
  /** `userId` set a new PIN at `atMs`, the first after a reset: every admin is told. */
  | { kind: "pin_renewed"; userId: number; atMs: number }
  /**
   * `userId` typed their right PIN at `atMs` after `count` wrong tries they had not been told
   * of, the last at `lastAtMs`: they are told.
   */
  | { kind: "pin_wrong_tries"; userId: number; count: number; lastAtMs: number; atMs: number };

/**
 * The outbox keeps each notice as one string, so queuing the same notice twice queues it
 * once. Payout ids never hold ":".
 */
export function noticeKey(notice: Notice): string {
  switch (notice.kind) {
    case "settled":
      return `settled:${notice.payoutId}`;
    case "attention":
      return `attention:${notice.reason}:${notice.payoutId}`;
    case "digest":
      return `digest:${notice.day}`;
    case "availability":
      return `availability:${notice.operator}:${notice.operation}:${notice.status}:${notice.sinceMs}`;
    case "batch_preview":
    case "batch_progress":
    case "batch_done":
    case "batch_decided":
    case "batch_approval_requested":
    case "batch_approval_decided":
    case "batch_approval_signed":
      return `${notice.kind}:${notice.batchId}`;
    case "events_disabled":
      return `events_disabled:${notice.atMs}`;
    case "standing_lost":
      return `standing_lost:${notice.userId}:${notice.byUserId}:${notice.atMs}`;
    case "schedule":
      return `schedule:${notice.what}:${notice.scheduleId}:${notice.runKey}`;
    case "pin_locked":
      return `pin_locked:${notice.userId}:${notice.untilMs}`;
    case "pin_reset":
      return `pin_reset:${notice.userId}:${notice.byUserId}:${notice.atMs}`;
    case "pin_renewed":
      return `pin_renewed:${notice.userId}:${notice.atMs}`;
    case "pin_wrong_tries":
      return `pin_wrong_tries:${notice.userId}:${notice.count}:${notice.lastAtMs}:${notice.atMs}`;
    default:
      return `${notice.kind}:${notice.payoutId}`;
  }
}

function isAttentionReason(value: string): value is AttentionReason {
  return (ATTENTION_REASONS as readonly string[]).includes(value);
}

function isBatchNoticeKind(value: string): value is BatchNoticeKind {
  return (BATCH_NOTICE_KINDS as readonly string[]).includes(value);
}

function isApprovalNoticeKind(value: string): value is ApprovalNoticeKind {
  return (APPROVAL_NOTICE_KINDS as readonly string[]).includes(value);
}

/**
 * The notice a key stands for, or null for a key that names none. A bare payout id is
 * what versions before typed notices queued on settlement: it still reads as "settled".
 */
export function parseNoticeKey(key: string): Notice | null {
  const parts = key.split(":");
  if (parts.length === 1 && key !== "") return { kind: "settled", payoutId: key };
  const [kind, first, second] = parts;
  if (kind === "settled" && parts.length === 2 && first) return { kind, payoutId: first };
  if (kind && isApprovalNoticeKind(kind) && parts.length === 2 && first) {
    return { kind, payoutId: first };
  }
  if (kind && isBatchNoticeKind(kind) && parts.length === 2 && first) {
    return { kind, batchId: first };
  }
  if (kind === "attention" && parts.length === 3 && first && second && isAttentionReason(first)) {
    return { kind, reason: first, payoutId: second };
  }
  if (kind === "digest" && parts.length === 2 && first && /^\d{4}-\d{2}-\d{2}$/.test(first)) {
    return { kind, day: first };
  }
  if (kind === "availability" && parts.length === 5) return availabilityNotice(parts);
  if (kind === "events_disabled" && parts.length === 2 && /^\d{1,15}$/.test(first ?? "")) {
    return { kind, atMs: Number(first) };
  }
  if (kind === "standing_lost" && parts.length === 4) return standingNotice(parts);
  if (kind === "schedule" && parts.length === 4) return scheduleNotice(parts);
  if (kind === "pin_locked" && parts.length === 3) {
    const [userId, untilMs] = [Number(first), Number(second)];
    const whole = (value: number) => Number.isSafeInteger(value) && value > 0;
    return whole(userId) && whole(untilMs) ? { kind, userId, untilMs } : null;
  }
  if (kind === "pin_reset" || kind === "pin_renewed" || kind === "pin_wrong_tries") {
    return pinNotice(kind, parts.slice(1));
  }
  return null;
}

/** A PIN's reset, renewal or unseen wrong tries, from its key's parts after the kind. */
function pinNotice(
  kind: "pin_reset" | "pin_renewed" | "pin_wrong_tries",
  parts: readonly string[],
): Notice | null {
  const numbers = parts.map((part) => (/^\d{1,15}$/.test(part) ? Number(part) : Number.NaN));
  if (numbers.some((value) => !Number.isSafeInteger(value))) return null;
  const [userId = 0, second = 0, third = 0, fourth = 0] = numbers;
  if (userId <= 0) return null;
  if (kind === "pin_reset" && numbers.length === 3) {
    return { kind, userId, byUserId: second, atMs: third };
  }
  if (kind === "pin_renewed" && numbers.length === 2) return { kind, userId, atMs: second };
  if (kind === "pin_wrong_tries" && numbers.length === 4 && second > 0) {
    return { kind, userId, count: second, lastAtMs: third, atMs: fourth };
  }
  return null;
}

function isScheduleNoticeKind(value: string): value is ScheduleNoticeKind {
  return (SCHEDULE_NOTICE_KINDS as readonly string[]).includes(value);
}

function scheduleNotice(parts: readonly string[]): Notice | null {
  const [, what, scheduleId, runKey] = parts;
  if (what === undefined || !isScheduleNoticeKind(what)) return null;
  if (!scheduleId || !/^[\w-]+$/.test(scheduleId) || !/^(\d{12}|-)$/.test(runKey ?? "")) {
    return null;
  }
  return {
    kind: "schedule",
    what,
    scheduleId,
    runKey: runKey ?? "-",
  };
}

function standingNotice(parts: readonly string[]): Notice | null {
  const [userId, byUserId, atMs] = parts.slice(1).map((part) => Number(part));
  if (userId === undefined || byUserId === undefined || atMs === undefined) return null;
  if (![userId, byUserId, atMs].every((value) => Number.isSafeInteger(value) && value >= 0)) {
    return null;
  }
  return { kind: "standing_lost", userId, byUserId, atMs };
}

function availabilityNotice(parts: readonly string[]): Notice | null {
  const [, operator, operation, status, since] = parts;
  const readOperator = TelecomOperatorSchema.safeParse(operator);
  const readOperation = PaymentTypeSchema.safeParse(operation);
  const sinceMs = Number(since);
  if (!readOperator.success || !readOperation.success || !Number.isSafeInteger(sinceMs)) {
    return null;
  }
  if (!AvailabilityStatusSchema.safeParse(status).success || status === undefined) return null;
  return {
    kind: "availability",
    operator: readOperator.data,
    operation: readOperation.data,
    status,
    sinceMs,
  };
}
