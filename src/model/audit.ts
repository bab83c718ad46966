/**
 * The audit trail: who did what to which payout (or batch), when, and what it changed. Moves
 * of a payout are written in the same atomic step as the move itself, so no entry is lost
 * or invented; other actions (staff changes, refusals) are written as they happen.
 */
import { z } from "zod";
import { PAYOUT_EVENTS, PAYOUT_STATES } from "./lifecycle.js";
import { ROLES, type Role } from "./roles.js";

/** Who made something happen: a staff member, or the bot itself (timers, the API's answers). */
export type Actor = { id: number; role: Role } | { id: 0; role: "system" };

/** The bot itself: expiries, the API's answers and statuses, the stranded rule. */
export const SYSTEM_ACTOR: Actor = { id: 0, role: "system" };

export const ActorRoleSchema = z.enum([...ROLES, "system"]);
export type ActorRole = z.infer<typeof ActorRoleSchema>;

const DetailValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const AuditDetailsSchema = z.record(z.string(), DetailValueSchema);
export type AuditDetails = z.infer<typeof AuditDetailsSchema>;

export const AuditEntrySchema = z.object({
  /** Where the entry stands in the log (set by the store; orders and pages entries). */
  id: z.string().optional(),
  atMs: z.number().int(),
  actorId: z.number().int(),
  actorRole: ActorRoleSchema,
  /** A lifecycle event (`confirm`, `approve`, `settle_success`…) or another action. */
  action: z.string().min(1),
  payoutId: z.string().optional(),
  batchId: z.string().optional(),
  /** The payout's state before and after, for a move. */
  from: z.enum(PAYOUT_STATES).optional(),
  to: z.enum(PAYOUT_STATES).optional(),
  /** Whole XAF, where an amount applies. */
  amount: z.number().int().optional(),
  /** Masked (`23767••••001`), where a number applies. */
  phone: z.string().optional(),
  details: AuditDetailsSchema.optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** The steps of a batch that are audited (as `batch_{step}`). */
export const BATCH_AUDIT_STEPS = [
  "checked",
  /** The payer included the rows that repeat recent payouts (they are then paid). */
  "include_repeats",
  "confirm",
  /** Confirmed at or over the threshold: it waits for an approver. */
  "request_approval",
  /** A signature short of its approval rule (APPROVAL_RULES): it still waits. */
  "sign",
  "approve",
  "reject",
  /** Nobody approved it within APPROVAL_TTL_HOURS. */
  "approval_expire",
  "cancel",
  "expire",
  "stop",
  "done",
  /** A scheduled batch confirmed (or approved): its rows became a schedule. */
  "schedule",
  /** A scheduled batch's run, checked, goes to paying on its schedule's Confirm. */
  "run_start",
] as const;
export type BatchAuditStep = (typeof BATCH_AUDIT_STEPS)[number];

/** The steps of a schedule and its runs that are audited (as `schedule_{step}`). */
export const SCHEDULE_AUDIT_STEPS = [
  "prompt",
  "confirm",
  "request_approval",
  /** A signature short of its approval rule (APPROVAL_RULES): it still waits. */
  "sign",
  "approve",
  "reject",
  "cancel",
  "expire",
  "pause",
  "resume",
  "delete",
  "finish",
  "run_sent",
  "run_held",
  "run_skipped",
  "run_missed",
  "run_retrying",
] as const;
export type ScheduleAuditStep = (typeof SCHEDULE_AUDIT_STEPS)[number];

/**
 * Every action this version writes: a payout's lifecycle events, its prompt and its
 * submission, and the actions that are not moves. Entries read back keep any string (an
 * older or newer version's action is shown as written).
 */
export const AUDIT_ACTIONS = [
  ...PAYOUT_EVENTS,
  "prompt",
  "submit",
  /** A signature that was not the last one its approval rule needs (the payout still waits). */
  "sign",
  "rejection_reason",
  "limit_refused",
  "staff_set",
  "staff_removed",
  "export",
  "batch_upload",
  ...BATCH_AUDIT_STEPS.map((step) => `batch_${step}` as const),
  /** Signed events (/events): paused, resumed, replayed by an admin; disabled by a 410. */
  "events_paused",
  "events_resumed",
  "events_replayed",
  "events_disabled",
  /** An operator's payouts or collections went down or came back (the bot saw it). */
  "availability_changed",
  /** Saved recipients: an alias saved (or replaced), forgotten, its name updated after a payout. */
  "recipient_saved",
  "recipient_forgotten",
  "recipient_renamed",
  ...SCHEDULE_AUDIT_STEPS.map((step) => `schedule_${step}` as const),
  /** Step-up PINs: set on first use, reset by an admin, a wrong try, locked after too many. */
  "pin_set",
  "pin_reset",
  "pin_failed",
  "pin_locked",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a caller says about an action; the store adds the id (and, for a move, the rest). */
export type AuditDraft = Omit<AuditEntry, "id" | "from" | "to" | "action"> & {
  action: AuditAction;
};

/** A staff member as the actor of what they did. */
export function staffActor(member: { userId: number; role: Role }): Actor {
  return { id: member.userId, role: member.role };
}

/** The entry's actor fields for `actor`. */
export function actorFields(actor: Actor): Pick<AuditEntry, "actorId" | "actorRole"> {
  return { actorId: actor.id, actorRole: actor.role };
}
