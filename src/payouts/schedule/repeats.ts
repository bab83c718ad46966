/**
 * The duplicate rule (DUPLICATE_WINDOW_MINUTES) on schedules, asking the question /pay and
 * batch rows ask (payouts/duplicates.ts): a /schedule prompt is told of a payout of the same
 * amount to the same number within the window, and of another schedule that already pays it
 * (made: waiting for approval, active or paused); a run is held when it repeats a payout in
 * the window other than its own schedule's earlier runs (a weekly payout repeats itself by
 * design: the plan its owner confirmed). The rule off (window 0): neither.
 */
import type { Payout } from "../../model/payout.js";
import type { Schedule, ScheduleState } from "../../model/schedule.js";
import { latestDuplicate } from "../duplicates.js";
import type { StepContext } from "../types.js";

/** Schedules that were made and may still pay. */
const MADE_STATES: readonly ScheduleState[] = ["awaiting_approval", "active", "paused"];
/** The latest schedules looked at (everyone's) for one that pays the same. */
const SCHEDULES_LOOKED_AT = 1_000;

/** What a new schedule repeats, and the first names of who made it. */
export interface ScheduleRepeats {
  payout?: Payout;
  schedule?: Schedule;
  names: ReadonlyMap<number, string>;
}

/** What a /schedule of `amount` to `phone` repeats; undefined when nothing (or the rule is off). */
export async function scheduleRepeats(
  context: StepContext,
  windowMs: number,
  query: { phone: string; amount: number; id: string },
): Promise<ScheduleRepeats | undefined> {
  if (windowMs <= 0) return undefined;
  const { stores, now } = context;
  const { phone, amount } = query;
  const [payout, schedules] = await Promise.all([
    latestDuplicate(stores.payouts, {
      phone,
      amount,
      kind: "disbursement",
      sinceMs: now() - windowMs,
    }),
    stores.schedules.list(SCHEDULES_LOOKED_AT),
  ]);
  const schedule = schedules.find(
    (other) =>
      other.id !== query.id &&
      other.batch === undefined &&
      other.phone === phone &&
      other.amount === amount &&
      MADE_STATES.includes(other.state),
  );
  if (!payout && !schedule) return undefined;
  const who = [payout?.initiatorId, schedule?.ownerId].filter((id) => id !== undefined);
  const profiles = await stores.profiles.getMany(who);
  const names = new Map([...profiles].map(([id, profile]) => [id, profile.firstName]));
  return { ...(payout ? { payout } : {}), ...(schedule ? { schedule } : {}), names };
}

/** The payout in the window a run of `schedule` repeats (not its own runs); undefined when none. */
export async function runRepeats(
  context: StepContext,
  windowMs: number,
  schedule: Schedule,
): Promise<Payout | undefined> {
  if (windowMs <= 0) return undefined;
  const { stores, now } = context;
  const query = { phone: schedule.phone, amount: schedule.amount, kind: "disbursement" as const };
  return latestDuplicate(
    stores.payouts,
    { ...query, sinceMs: now() - windowMs },
    { idPrefix: `${schedule.id}-` },
  );
}
