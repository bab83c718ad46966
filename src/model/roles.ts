/**
 * The staff roles. What each may do is decided in one place, payouts/policy.ts; this is
 * only their names.
 */
import { z } from "zod";

export const ROLES = ["admin", "approver", "payer", "viewer"] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
