/**
 * Approval rules for schedules (APPROVAL_RULES): a schedule follows the band of one run's
 * amount, kept on it when it is sent for approval (or its Resume is); each Approve is a
 * signature, the last one activates it. Signatures short of the rule are written while it
 * still waits (a compare-and-set on its state); a signer who lost their standing since no
 * longer counts.
 */

import {
  addSignature,
  bandOf,
  ruleOfBand,
  type Signatures,
  type SignersExpected,
} from "../../model/approval-rules.js";
import { staffActor } from "../../model/audit.js";
import type { Schedule } from "../../model/schedule.js";
import { type Asker, DECIDING_ROLES } from "../policy.js";
import type { StepContext } from "../types.js";
import { scheduleAudit } from "./audit.js";
import type { ScheduleSettings } from "./settings.js";
import type { ScheduleStepResult } from "./step-results.js";

/**
 * What a request for approval records: until when it waits and the band of one run (a
 * Resume sent for approval also unsets the signatures given before: it starts from none).
 */
export function approvalRequestPatch(settings: ScheduleSettings, amountXaf: number, nowMs: number) {
  return {
    expiresAtMs: nowMs + settings.approvalTtlMs,
    ...ruleOfBand(bandOf(settings.approvalBands ?? [], amountXaf)),
  };
}

/** Who must still stand, in the same step as the move, for `signatures` to count. */
export function signersOf(schedule: Schedule, signatures: Signatures): SignersExpected {
  const rule = schedule.approvalRule ?? { signatures: 1, roles: DECIDING_ROLES };
  const userIds = signatures.map((signature) => signature.userId);
  return { userIds, roles: rule.roles, askedAtMs: schedule.createdAtMs };
}

/**
 * `asker`'s signature on `schedule` (awaiting approval): `last` with every signature when
 * it completes the rule (the caller activates it with them); else recorded (`signed`), or
 * refused (`already_signed`, `forbidden` for a role the band does not name).
 */
export async function signSchedule(
  context: StepContext,
  schedule: Schedule,
  asker: NonNullable<Asker>,
  notice: () => void,
): Promise<{ outcome: "last"; signatures: Signatures } | ScheduleStepResult> {
  const { stores, now } = context;
  const rule = schedule.approvalRule ?? { signatures: 1, roles: DECIDING_ROLES };
  if (!rule.roles.includes(asker.role)) return { outcome: "forbidden", schedule };
  const staff = new Map((await stores.staff.list()).map((m) => [m.userId, m]));
  const signer = { userId: asker.userId, atMs: now() };
  const added = addSignature(schedule.signatures, signer, rule, schedule.createdAtMs, (id) =>
    staff.get(id),
  );
  if (added.outcome === "already_signed") return { outcome: "already_signed", schedule };
  const { signatures } = added;
  if (added.outcome === "last") return { outcome: "last", signatures };
  const audit = scheduleAudit(schedule, "sign", staffActor(asker), now(), {
    given: signatures.length,
  });
  const moved = await stores.schedules.move(
    schedule.id,
    ["awaiting_approval"],
    "awaiting_approval",
    { signatures },
    {
      audit,
      notices: [
        { kind: "schedule", what: "approval_signed", scheduleId: schedule.id, runKey: "-" },
      ],
      // The request as read: signatures read on a Resume rejected since never land on the next.
      expectExpiresAtMs: schedule.expiresAtMs,
      signers: signersOf(schedule, signatures),
    },
  );
  if (!moved.ok) return { outcome: "already", schedule: moved.schedule ?? schedule };
  notice();
  const given = signatures.length;
  return { outcome: "signed", schedule: moved.schedule, given, needed: rule.signatures };
}
