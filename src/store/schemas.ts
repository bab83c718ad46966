/**
 * zod schemas of the small records the stores keep (dialogs, audit entries, roles), checked
 * on the way in and on every read, and tied to the interfaces of types.ts.
 */
import { z } from "zod";
import { ROLES } from "../config.js";
import type { AuditEntry, DialogState, UserProfile } from "./types.js";

export const DialogStateSchema: z.ZodType<DialogState> = z.object({
  kind: z.enum(["disbursement", "collection"]),
  step: z.enum(["phone", "amount"]),
  phone: z.string().optional(),
});

export const AuditEntrySchema: z.ZodType<AuditEntry> = z.object({
  atMs: z.number().int(),
  actorId: z.number().int(),
  action: z.string().min(1),
  payoutId: z.string().optional(),
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .optional(),
});

export const RoleSchema = z.enum(ROLES);

/** Telegram allows first names of 1-64 characters and usernames of 5-32 of [A-Za-z0-9_]. */
export const UserProfileSchema: z.ZodType<UserProfile> = z.object({
  firstName: z.string().min(1).max(64),
  username: z
    .string()
    .regex(/^\w{1,32}$/)
    .optional(),
});

/** The audit log keeps this many entries, newest first. */
export const AUDIT_CAPACITY = 10_000;

/** Parses `value` or throws an error naming `what` (for data we are about to store). */
export function checkInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(value)"}: ${issue.message}`,
    );
    throw new Error(`${what} is not valid: ${problems.join("; ")}`);
  }
  return parsed.data;
}
