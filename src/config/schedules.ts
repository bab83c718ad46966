/**
 * The schedules' variables (part of config/index.ts's schema):
 *
 * - SCHEDULE_DEFAULT_TIME: `HH:MM` (24-hour, in TIME_ZONE) of a run given as a date alone;
 *   default 09:00.
 * - SCHEDULE_CATCH_UP_HOURS: a run whose time passed while no replica ran is still sent
 *   when one starts within this many hours of it; later, it is reported missed, never
 *   sent. Default 24.
 * - SCHEDULE_RETRY_HOURS: a run whose operator is suspended is tried again for this long,
 *   then held for its owner. Default 6.
 * - SCHEDULE_REMINDER_HOURS: the owner is reminded this long before each run (with Skip
 *   this run); 0: no reminders. Default 24.
 */
import { z } from "zod";
import { intInRange, optionalText } from "./env-values.js";

export const schedulesEnvShape = {
  SCHEDULE_DEFAULT_TIME: optionalText()
    .transform((value) => {
      const match = /^(\d{1,2}):(\d{2})$/.exec(value ?? "09:00");
      if (!match || Number(match[1]) > 23 || Number(match[2]) > 59) return undefined;
      return `${match[1]?.padStart(2, "0")}:${match[2]}`;
    })
    .refine((value) => value !== undefined, {
      message: "must be a time of day HH:MM from 00:00 to 23:59, e.g. 09:00",
    }),
  SCHEDULE_CATCH_UP_HOURS: intInRange(24, 0, 24 * 7),
  SCHEDULE_RETRY_HOURS: intInRange(6, 0, 24 * 7),
  SCHEDULE_REMINDER_HOURS: intInRange(24, 0, 24 * 14),
};

const schedulesEnvSchema = z.object(schedulesEnvShape);
export type SchedulesEnvValues = z.output<typeof schedulesEnvSchema>;

export interface SchedulesConfig {
  /** `HH:MM` of a run given as a date alone. */
  defaultTime: string;
  catchUpMs: number;
  retryMs: number;
  /** 0: no reminders. */
  reminderMs: number;
}

export function schedulesConfig(values: SchedulesEnvValues): SchedulesConfig {
  return {
    defaultTime: values.SCHEDULE_DEFAULT_TIME ?? "09:00",
    catchUpMs: values.SCHEDULE_CATCH_UP_HOURS * 3_600_000,
    retryMs: values.SCHEDULE_RETRY_HOURS * 3_600_000,
    reminderMs: values.SCHEDULE_REMINDER_HOURS * 3_600_000,
  };
}
