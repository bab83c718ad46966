/**
 * What both reports stores share: the notices they queue, the state they keep of an
 * observed operation, and how long a day's digest mark is kept.
 */

import type { AuditDraft } from "../model/audit.js";
import {
  isUp,
  keptStatus,
  type OperationObservation,
  type OperationState,
  OperationStateSchema,
} from "../model/availability.js";
import { noticeKey } from "../model/notice.js";
import { parseJsonOrUndefined } from "./schemas.js";

/** A day's digest mark outlives the day by enough for any replica, clock or restart. */
export const DIGEST_MARK_MS = 3 * 86_400_000;

/** The hash field of an operation: `mtn:disbursement`. */
export function operationField(observation: Pick<OperationObservation, "operator" | "operation">) {
  return `${observation.operator}:${observation.operation}`;
}

export function digestNoticeKey(day: string): string {
  return noticeKey({ kind: "digest", day });
}

/** The state an observation leaves, as first seen or as a change seen at `nowMs`. */
export function observedState(
  observation: OperationObservation,
  nowMs: number,
  firstSeen: boolean,
): OperationState {
  const status = keptStatus(observation.status);
  return {
    operator: observation.operator,
    operation: observation.operation,
    status,
    up: isUp(status),
    sinceMs: nowMs,
    firstSeen,
  };
}

/** The alert of a change to `state`. */
export function availabilityNoticeKey(state: OperationState): string {
  return noticeKey({
    kind: "availability",
    operator: state.operator,
    operation: state.operation,
    status: state.status,
    sinceMs: state.sinceMs,
  });
}

/** A kept state read back (JSON), or undefined when it does not read as one. */
export function decodeOperationState(text: string): OperationState | undefined {
  const parsed = OperationStateSchema.safeParse(parseJsonOrUndefined(text));
  return parsed.success ? parsed.data : undefined;
}

/**
 * The audit entry of an operation going down or coming back (or first seen down): written
 * in the same step as the state and its alert, so the signed event it becomes
 * (`operator.availability_changed`) exists exactly when the change does.
 */
export function availabilityAuditDraft(state: OperationState): AuditDraft {
  return {
    atMs: state.sinceMs,
    actorId: 0,
    actorRole: "system",
    action: "availability_changed",
    details: {
      operator: state.operator,
      operation: state.operation,
      status: state.status,
      up: state.up,
      firstSeen: state.firstSeen,
    },
  };
}
