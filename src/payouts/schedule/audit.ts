/** The audit entries of a schedule's steps and runs (`schedule_{step}`), one shape for all. */
import type { Actor, AuditDraft, ScheduleAuditStep } from "../../model/audit.js";
import type { Schedule } from "../../model/schedule.js";

/** The audit draft of a schedule step. */
export function scheduleAudit(
  schedule: Schedule,
  step: ScheduleAuditStep,
  actor: Actor,
  atMs: number,
  details: Record<string, string | number | boolean | null> = {},
): AuditDraft {
  return {
    atMs,
    actorId: actor.id,
    actorRole: actor.role,
    action: `schedule_${step}` as const,
    amount: schedule.amount,
    details: { scheduleId: schedule.id, ...details },
  };
}
