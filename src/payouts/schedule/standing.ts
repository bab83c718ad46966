/**
 * The schedules of someone who lost the standing to pay (removed from staff, or given a role
 * that may not pay), in the staff change's own step (payouts/staff.ts): a schedule still
 * waiting for its Confirm or for approval is cancelled (its approvers' cards told), a Resume
 * of theirs waiting for approval goes back to paused, and an active one is paused
 * (`owner_not_allowed`). None of them pays again unless someone decides again: a paused one
 * is resumed by a person (at or over a threshold, through approval), and a cancelled one is
 * over. Each is marked with the change's time (`stoppedAtMs`) so the change's summary lists
 * them.
 */
import type { Actor } from "../../model/audit.js";
import type { Notice } from "../../model/notice.js";
import { SCHEDULE_MOVES, type Schedule } from "../../model/schedule.js";
import type { Stores } from "../../store/types.js";
import { scheduleAudit } from "./audit.js";

/**
 * The latest schedules read (everyone's, newest first) for a person's: a staff change is
 * rare, and a deployment with more schedules than this keeps older ones to the scheduler's
 * own check at run time (a run of an owner who may not pay pauses its schedule).
 */
export const STANDING_SCHEDULES_READ = 5_000;

/** A person's schedules the change stops: waiting for Confirm or approval, or active. */
function stoppable(schedule: Schedule, userId: number): boolean {
  if (schedule.ownerId !== userId) return false;
  return ["awaiting_confirmation", "awaiting_approval", "active"].includes(schedule.state);
}

/**
 * Stops `userId`'s schedules as of the change at `atMs` by `actor`; answers how many were
 * stopped (one that moved on meanwhile is left as it is now).
 */
export async function stopSchedulesOf(
  stores: Stores,
  change: { userId: number; actor: Actor; atMs: number; reason: "removed" | "demoted" },
): Promise<number> {
  const { userId, actor, atMs, reason } = change;
  const mark = { changedBy: actor.id, stoppedAtMs: atMs };
  let stopped = 0;
  for (const schedule of await stores.schedules.list(STANDING_SCHEDULES_READ)) {
    if (!stoppable(schedule, userId)) continue;
    const waited = schedule.state === "awaiting_approval";
    const notices: Notice[] = waited
      ? [{ kind: "schedule", what: "approval_decided", scheduleId: schedule.id, runKey: "-" }]
      : [];
    const step = schedule.state === "active" || schedule.resuming ? "pause" : "owner_stopped";
    const { from, to } =
      step === "pause"
        ? schedule.resuming
          ? SCHEDULE_MOVES.refuse_resume
          : SCHEDULE_MOVES.pause
        : SCHEDULE_MOVES.owner_stopped;
    const moved = await stores.schedules.move(
      schedule.id,
      from,
      to,
      step === "pause" ? { ...mark, pausedBecause: "owner_not_allowed" } : mark,
      {
        notices,
        audit: scheduleAudit(schedule, step === "pause" ? "pause" : "cancel", actor, atMs, {
          reason,
        }),
        unset: ["resuming"],
      },
    );
    if (moved.ok) stopped += 1;
  }
  return stopped;
}

/** The schedules the change at `atMs` stopped for `userId` (for its summary). */
export async function schedulesStoppedBy(
  stores: Stores,
  change: { userId: number; atMs: number },
): Promise<Schedule[]> {
  return (await stores.schedules.list(STANDING_SCHEDULES_READ)).filter(
    (schedule) => schedule.ownerId === change.userId && schedule.stoppedAtMs === change.atMs,
  );
}
