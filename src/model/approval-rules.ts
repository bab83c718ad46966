/**
 * Approval rules (APPROVAL_RULES): bands by amount, from the smallest. A payout (or a
 * batch by its total, a schedule by one run) at or over a band's `fromXaf` needs
 * `signatures` distinct people in one of `roles`, never its initiator. Under the first
 * band nobody approves.
 */
import { z } from "zod";
import { type Role, RoleSchema } from "./roles.js";

export interface ApprovalBand {
  /** Whole XAF from which the band applies. */
  fromXaf: number;
  /** How many distinct people must sign: 1, 2 or 3. */
  signatures: 1 | 2 | 3;
  /** Who may sign in this band (approvers and admins when the rule names none). */
  roles: readonly Role[];
}

/** The band `amount` falls in (the highest whose `fromXaf` it reaches), or undefined. */
export function bandOf(bands: readonly ApprovalBand[], amount: number): ApprovalBand | undefined {
  let found: ApprovalBand | undefined;
  for (const band of bands) if (amount >= band.fromXaf) found = band;
  return found;
}

/** The band a payout or batch fell in when it was asked for, kept with it. */
export const ApprovalRuleSchema = z.object({
  signatures: z.number().int().min(1).max(3),
  roles: z.array(RoleSchema).min(1),
});

/** The signatures given so far, oldest first: who and when. */
export const SignaturesSchema = z.array(
  z.object({ userId: z.number().int(), atMs: z.number().int() }),
);
export type Signatures = z.infer<typeof SignaturesSchema>;

/** The rule kept for a band (absent: no band, one approver as before rules). */
export function ruleOfBand(band: ApprovalBand | undefined) {
  return band ? { approvalRule: { signatures: band.signatures, roles: [...band.roles] } } : {};
}

/** Where a signer stands now: their role, and when it was granted (absent: before it was kept). */
export interface SignerStanding {
  role: Role;
  grantedAtMs?: number | undefined;
}

/**
 * Signers whose standing a store checks in the same atomic step as a move that counts their
 * signatures: each on staff now in one of `roles`, granted no later than `askedAtMs`.
 */
export interface SignersExpected {
  userIds: readonly number[];
  roles: readonly Role[];
  askedAtMs: number;
}

/** Whether every one of `signers` still stands (the memory stores' check; the scripts' is lua/includes/signatures.lua). */
export function signersStand(
  signers: SignersExpected,
  standing: (userId: number) => SignerStanding | null | undefined,
): boolean {
  return signers.userIds.every((userId) => {
    const member = standing(userId);
    return (
      member != null &&
      signers.roles.includes(member.role) &&
      (member.grantedAtMs ?? 0) <= signers.askedAtMs
    );
  });
}

/**
 * `signer`'s signature added to those `given` on a request asked for at `askedAtMs`: the
 * earlier ones count only while their signer stands in one of `rule.roles` and did when it
 * was asked for (a signer removed or demoted since no longer counts); `last` when the rule
 * is then met; `already_signed` when the signer is among those still counted. The payout
 * store's scripts (lua/includes/signatures.lua) count the same way, in their own step.
 */
export function addSignature(
  given: Signatures | undefined,
  signer: { userId: number; atMs: number },
  rule: { signatures: number; roles: readonly Role[] },
  askedAtMs: number,
  standing: (userId: number) => SignerStanding | null | undefined,
): { outcome: "already_signed" } | { outcome: "signed" | "last"; signatures: Signatures } {
  const kept = (given ?? []).filter((signature) => {
    const member = standing(signature.userId);
    return (
      member != null && rule.roles.includes(member.role) && (member.grantedAtMs ?? 0) <= askedAtMs
    );
  });
  if (kept.some((signature) => signature.userId === signer.userId)) {
    return { outcome: "already_signed" };
  }
  const signatures = [...kept, signer];
  return { outcome: signatures.length >= rule.signatures ? "last" : "signed", signatures };
}
