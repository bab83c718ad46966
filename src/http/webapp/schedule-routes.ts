/**
 * The Mini App's Schedules page: the schedules the caller may see (those made: active,
 * paused, finished, waiting for approval), and Pause, Resume and Delete through the very
 * step the chat's buttons call (payouts/schedule/schedules.ts `change`): the owner or an
 * admin, one compare-and-set audited in the same step. The route only reads its input and
 * says what the step came to:
 *
 * - GET  `schedules` → 200 `{ items, names, timeZone }`, each item with `mayChange` (the
 *   policy's answer for the caller: the page shows buttons only then).
 * - POST `schedules/:id/pause|resume|delete` → 200 `{ outcome: "done", schedule }` (or
 *   `approval_requested`: a Resume at or over a threshold waits for an approver) | 403
 *   `forbidden` (a viewer, or a payer on someone else's) | 403 `paused_by_staff` (a Resume
 *   of what an admin or an approver paused, by neither) | 404 | 409 `already` `{ schedule }`
 *   (a second press: the schedule as it stands) | 409 `no_runs` (nothing left to resume).
 */
import type { Schedule } from "../../model/schedule.js";
import type { Asker } from "../../payouts/policy.js";
import { mayChange, type ScheduleStepResult } from "../../payouts/schedule/schedules.js";
import { askerOf } from "./auth.js";
import { failure, type WebAppReply, type WebAppRoute } from "./routes.js";

type Member = NonNullable<Asker>;

/** What a change can be asked for from the page. */
export type ScheduleChange = "pause" | "resume" | "delete";

const CHANGES: readonly ScheduleChange[] = ["pause", "resume", "delete"];

/** How many schedules the page lists (the newest first). */
export const SCHEDULES_SHOWN = 100;

export interface ScheduleSteps {
  /** The schedules `asker` may see, newest first. */
  list(asker: Member): Promise<Schedule[]>;
  /** The next `count` runs after the one stored (none stored: after now). */
  nextRuns(schedule: Schedule, count: number): number[];
  change(asker: Member, id: string, step: ScheduleChange): Promise<ScheduleStepResult>;
  /** The aliases each number is saved under (numbers not saved are left out). */
  aliases(): Promise<Map<string, string[]>>;
  names(userIds: readonly number[]): Promise<Map<number, string>>;
  /** TIME_ZONE: run times are shown in it, as the chat shows them. */
  timeZone: string;
}

const ScheduleId = /^[\w-]{6,16}$/;

/** What the page is shown of a schedule (no chat or message ids). */
function scheduleView(
  steps: ScheduleSteps,
  schedule: Schedule,
  asker: Member,
  aliases: ReadonlyMap<string, string[]>,
) {
  // An active one's next run is the one stored (the scheduler's); one waiting for approval
  // shows the runs it would have from now on, as the chat's card does.
  const next = schedule.state === "active" ? schedule.nextRunAtMs : undefined;
  const nextRuns =
    next !== undefined
      ? [next, ...steps.nextRuns(schedule, 2)]
      : schedule.state === "awaiting_approval"
        ? steps.nextRuns(schedule, 3)
        : [];
  return {
    id: schedule.id,
    state: schedule.state,
    recurrence: schedule.recurrence,
    phone: schedule.phone,
    operator: schedule.operator,
    recipientName: schedule.recipientName,
    aliases: aliases.get(schedule.phone) ?? [],
    amount: schedule.amount,
    note: schedule.note,
    ownerId: schedule.ownerId,
    createdAtMs: schedule.createdAtMs,
    runCount: schedule.runCount,
    nextRuns,
    pausedBecause: schedule.pausedBecause,
    mayChange: mayChange(asker, schedule),
  };
}

function changeReply(
  steps: ScheduleSteps,
  result: ScheduleStepResult,
  asker: Member,
  aliases: ReadonlyMap<string, string[]>,
): WebAppReply {
  switch (result.outcome) {
    case "done":
    case "approval_requested":
      return {
        status: 200,
        json: {
          outcome: result.outcome,
          schedule: scheduleView(steps, result.schedule, asker, aliases),
        },
      };
    case "paused_by_staff":
      return failure(403, "paused_by_staff");
    case "forbidden":
      return failure(403, "forbidden");
    case "not_found":
      return failure(404, "not_found");
    case "no_runs":
      return failure(409, "no_runs");
    default:
      // Already paused, resumed or deleted (a second press, or someone else first).
      return {
        status: 409,
        json: { error: "already", schedule: scheduleView(steps, result.schedule, asker, aliases) },
      };
  }
}

export function scheduleRoutes(steps: ScheduleSteps): WebAppRoute[] {
  return [
    {
      method: "GET",
      path: "schedules",
      capability: "read",
      async handle({ user }) {
        const asker = askerOf(user);
        const [schedules, aliases] = await Promise.all([steps.list(asker), steps.aliases()]);
        const ids = [...new Set(schedules.map((schedule) => schedule.ownerId))];
        const names = Object.fromEntries(await steps.names(ids));
        return {
          status: 200,
          json: {
            items: schedules.map((schedule) => scheduleView(steps, schedule, asker, aliases)),
            names,
            timeZone: steps.timeZone,
          },
        };
      },
    },
    ...CHANGES.map(
      (step): WebAppRoute => ({
        method: "POST",
        path: `schedules/:id/${step}`,
        // The step decides who may (the owner or an admin): a viewer passes here and is
        // refused by it, exactly as their press in the chat would be.
        capability: "read",
        async handle({ user, params }) {
          const id = params.id ?? "";
          if (!ScheduleId.test(id)) return failure(404, "not_found");
          const asker = askerOf(user);
          const result = await steps.change(asker, id, step);
          const aliases =
            "schedule" in result ? await steps.aliases() : new Map<string, string[]>();
          return changeReply(steps, result, asker, aliases);
        },
      }),
    ),
  ];
}
