/**
 * The reports' variables (part of config/index.ts's schema): the daily digest's hour, where
 * operator alerts go, and how often operator availability is read.
 *
 * - DIGEST_HOUR: 0-23 in TIME_ZONE; unset: no digest.
 * - ALERT_CHAT_ID: a Telegram chat id (a person, or a group: negative); unset: every admin.
 * - AVAILABILITY_CHECK_SECONDS: a whole number of seconds from 1 up; default 120. Each
 *   check is one GET /availability, counted in the API's rate limit like any request.
 */
import { z } from "zod";
import { intInRange } from "./env-values.js";

/** A whole number from `min` to `max`, or undefined when unset or blank. */
function optionalInt(min: number, max: number, example: string) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return undefined;
      const parsed = Number(value.trim());
      if (!/^-?\d+$/.test(value.trim()) || parsed < min || parsed > max) {
        ctx.addIssue({ code: "custom", message: `${example} (got "${value}")` });
        return z.NEVER;
      }
      return parsed;
    });
}

export const reportsEnvShape = {
  DIGEST_HOUR: optionalInt(0, 23, "must be an hour from 0 to 23, or unset for no digest"),
  ALERT_CHAT_ID: optionalInt(
    -(2 ** 52),
    2 ** 52,
    "must be a numeric Telegram chat id (a user's id, or a group's, e.g. -1001234567890), or unset for every admin",
  ),
  AVAILABILITY_CHECK_SECONDS: intInRange(120, 1, 86_400),
};

const reportsEnvSchema = z.object(reportsEnvShape);
export type ReportsEnvValues = z.output<typeof reportsEnvSchema>;

export interface ReportsConfig {
  /** The hour (in TIME_ZONE) the admins get the day's digest; undefined: never. */
  digestHour: number | undefined;
  /** Where availability alerts go; undefined: every admin. */
  alertChatId: number | undefined;
  /** How often GET /availability is read, on one replica. */
  availabilityCheckMs: number;
}

export function reportsConfig(values: ReportsEnvValues): ReportsConfig {
  return {
    digestHour: values.DIGEST_HOUR,
    alertChatId: values.ALERT_CHAT_ID,
    availabilityCheckMs: values.AVAILABILITY_CHECK_SECONDS * 1000,
  };
}
