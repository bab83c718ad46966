/** Who the staff are: their role, where it came from, and how Telegram names them. */
import { z } from "zod";
import { type Locale, LocaleSchema } from "./locale.js";
import type { Role } from "./roles.js";

/** One member of the `STAFF` variable. */
export interface StaffEntry {
  userId: number;
  role: Role;
}

/**
 * Where a staff member's role, or their removal, came from: the `STAFF` variable at start,
 * or an admin's `/staff` command. A runtime change always wins over `STAFF` (see
 * payouts/staff-bootstrap.ts).
 */
export type StaffOrigin =
  | { source: "env"; removed?: boolean }
  | { source: "runtime"; byUserId: number; atMs: number; removed?: boolean };

export interface StaffMember {
  userId: number;
  role: Role;
  origin?: StaffOrigin;
  /** When the current role was granted (ms); absent for a role granted before it was kept. */
  grantedAtMs?: number;
}

/**
 * How Telegram names a user (their first name, and @username when they have one), and the
 * language of their Telegram app when it told us (`language_code`, read as en or fr): what
 * cards and notices they did not ask for are written in until they choose one with /lang.
 */
export interface UserProfile {
  firstName: string;
  username?: string;
  locale?: Locale;
}

export const StaffOriginSchema: z.ZodType<StaffOrigin> = z.union([
  z.object({ source: z.literal("env"), removed: z.boolean().optional() }),
  z.object({
    source: z.literal("runtime"),
    byUserId: z.number().int(),
    atMs: z.number().int(),
    removed: z.boolean().optional(),
  }),
]);

/** Telegram allows first names of 1-64 characters and usernames of 5-32 of [A-Za-z0-9_]. */
export const UserProfileSchema: z.ZodType<UserProfile> = z.object({
  firstName: z.string().min(1).max(64),
  username: z
    .string()
    .regex(/^\w{1,32}$/)
    .optional(),
  locale: LocaleSchema.optional(),
});
