/**
 * How audit entries are kept, shared by both stores: a draft (what the caller says) as JSON
 * in field `e` of a stream entry, and for a payout's move the states before and after, its
 * amount and its masked number, in fields of their own (the Redis scripts write those from
 * the record itself, in the same atomic step as the move).
 */

import { maskPhone } from "../logger.js";
import {
  type Actor,
  type AuditAction,
  type AuditDetails,
  type AuditDraft,
  type AuditEntry,
  AuditEntrySchema,
  actorFields,
  SYSTEM_ACTOR,
} from "../model/audit.js";
import type { Payout } from "../model/payout.js";
import { checkInput, parseJsonOrUndefined } from "./schemas.js";

const DraftSchema = AuditEntrySchema.omit({ id: true, from: true, to: true });

/** The audit draft of a payout's move, creation or submission, checked. */
export function payoutDraft(
  payoutId: string,
  action: AuditAction,
  atMs: number,
  actor: Actor | undefined,
  details: AuditDetails | undefined,
): AuditDraft {
  const draft: AuditDraft = {
    atMs,
    ...actorFields(actor ?? SYSTEM_ACTOR),
    action,
    payoutId,
    ...(details ? { details } : {}),
  };
  return { ...checkInput(DraftSchema, draft, "audit entry"), action };
}

/** `payoutDraft` as JSON, for the scripts. */
export function payoutDraftJson(...args: Parameters<typeof payoutDraft>): string {
  return JSON.stringify(payoutDraft(...args));
}

/** A checked draft, as JSON (an action that is not a move). */
export function draftJson(draft: AuditDraft): string {
  return JSON.stringify(checkInput(DraftSchema, draft, "audit entry"));
}

/** The oldest stream id kept: entries older than the retention are trimmed. */
export function auditMinId(nowMs: number, retentionMs: number): string {
  return `${Math.max(0, nowMs - retentionMs)}-0`;
}

/** A stream entry (`[field, value, …]`) as an AuditEntry; null when it does not read as one. */
export function decodeAuditEntry(id: string, fields: readonly string[]): AuditEntry | null {
  const values = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2) {
    values.set(fields[index] ?? "", fields[index + 1] ?? "");
  }
  const draft = parseJsonOrUndefined(values.get("e") ?? "");
  if (typeof draft !== "object" || draft === null) return null;
  const extra: Record<string, unknown> = { id };
  for (const name of ["from", "to", "amount"] as const) {
    const raw = values.get(name);
    if (raw !== undefined) extra[name] = parseJsonOrUndefined(raw);
  }
  const phone = values.get("phone");
  if (phone !== undefined) extra.phone = phone;
  const repeats = parseJsonOrUndefined(values.get("duplicateOf") ?? "");
  if (typeof repeats === "string") {
    const details = "details" in draft && typeof draft.details === "object" ? draft.details : {};
    extra.details = { ...details, duplicateOf: repeats };
  }
  const parsed = AuditEntrySchema.safeParse({ ...draft, ...extra });
  return parsed.success ? parsed.data : null;
}

/** What a memory store's move adds to its draft: the record's amount and masked number. */
export function payoutFacts(payout: Payout): Pick<AuditEntry, "amount" | "phone"> {
  return { amount: payout.amount, phone: maskPhone(payout.phone) };
}
