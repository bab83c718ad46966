/**
 * What schedules add to the admins' daily digest: the runs due tomorrow (how many, what
 * they come to) and the runs held, waiting for their owner's Send anyway or Skip.
 */
import type { Stores } from "../../store/types.js";
import { type Day, nextDay, startOfDayMs } from "../../time.js";
import { runsAfter } from "./when.js";

export interface ScheduleDigest {
  tomorrowRuns: number;
  /** Whole XAF. */
  tomorrowXaf: number;
  heldRuns: number;
}

/** The most schedules the digest reads. */
const DIGEST_SCHEDULES = 1_000;

/** Runs due on the day after `day` (in `zone`), and the runs held now. */
export async function scheduleDigest(
  stores: Stores,
  day: Day,
  zone: string,
): Promise<ScheduleDigest> {
  const tomorrow = nextDay(day);
  const fromMs = startOfDayMs(tomorrow, zone);
  const toMs = startOfDayMs(nextDay(tomorrow), zone);
  const [schedules, held] = await Promise.all([
    stores.schedules.list(DIGEST_SCHEDULES),
    stores.schedules.heldRuns(),
  ]);
  let tomorrowRuns = 0;
  let tomorrowXaf = 0;
  for (const schedule of schedules) {
    if (schedule.state !== "active") continue;
    // At most one run a day (monthly, weekly or once): the first from that day's start.
    const [run] = runsAfter(schedule.recurrence, zone, fromMs - 1, 1);
    if (run && run.atMs < toMs) {
      tomorrowRuns += 1;
      tomorrowXaf += schedule.amount;
    }
  }
  return { tomorrowRuns, tomorrowXaf, heldRuns: held.length };
}
