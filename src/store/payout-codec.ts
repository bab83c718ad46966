/**
 * What both payout stores share: validation of what goes in, decoding of what comes out,
 * and how long a record is kept.
 */
import type { z } from "zod";
import { expiresInState, notifiesPayer, type PayoutState } from "../model/lifecycle.js";
import { type Notice, noticeKey } from "../model/notice.js";
import { type Payout, type PayoutPatch, PayoutSchema } from "../model/payout.js";
import { CorruptRecordError } from "./errors.js";
import { checkInput } from "./schemas.js";

/** The fields a patch may carry (`id`, `kind`, `state` never change through one). */
// What a payout is searched by (name, note, alias) is indexed at creation: no patch sets it.
const PayoutPatchSchema = PayoutSchema.omit({
  id: true,
  kind: true,
  state: true,
  recipientName: true,
  note: true,
  recipientAlias: true,
}).partial();

/**
 * An unconfirmed prompt is kept until its Confirm button expires plus this grace (for a
 * late press to be told "expired"), not for the whole retention: nothing happened to it.
 */
export const PROMPT_GRACE_MS = 60 * 60_000;

/** How long a record is kept after it is written in `payout`'s state (null: for ever). */
export function recordLifetimeMs(
  payout: Payout,
  nowMs: number,
  retentionMs: number,
): number | null {
  if (!expiresInState(payout.state)) return null;
  if (payout.state !== "awaiting_confirmation") return retentionMs;
  return Math.min(retentionMs, Math.max(1, payout.expiresAtMs - nowMs + PROMPT_GRACE_MS));
}

/** Issue paths and messages only: zod messages for our schemas do not quote the values. */
function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`);
}

/** Validates a new payout; throws with every problem when it is not one. */
export function checkPayout(payout: Payout): Payout {
  return checkInput(PayoutSchema, payout, "payout");
}

/** Each field a patch may carry → its own schema (PayoutPatchSchema's, one field at a time). */
const PATCH_FIELDS: ReadonlyMap<string, z.ZodType> = new Map(
  Object.entries(PayoutPatchSchema.shape),
);

/**
 * Validates a patch and drops `undefined` values (they mean "leave as is"). The same check as
 * PayoutPatchSchema.parse (unknown fields dropped, each present one checked by its own schema,
 * every problem named), but only the few fields a patch carries are looked at, not the ~45 of
 * the record: a move's patch is checked on every move.
 */
export function checkPatch(patch: PayoutPatch): PayoutPatch {
  const checked: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [field, value] of Object.entries(patch)) {
    const schema = PATCH_FIELDS.get(field);
    if (schema === undefined || value === undefined) continue;
    const parsed = schema.safeParse(value);
    if (parsed.success) checked[field] = parsed.data;
    else {
      for (const issue of parsed.error.issues) {
        problems.push(`${[field, ...issue.path].join(".")}: ${issue.message}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`payout patch is not valid: ${problems.join("; ")}`);
  return checked as PayoutPatch;
}

/** `{a: 1, b: "x"}` → `["a", "1", "b", "\"x\""]`: HSET arguments, values JSON-encoded. */
export function encodeFields(fields: Readonly<Record<string, unknown>>): string[] {
  const flat: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) flat.push(field, JSON.stringify(value));
  }
  return flat;
}

/** `[field, value, …]` (a Lua HGETALL reply) → `{field: value}`. */
export function pairsToRecord(flat: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) {
    record[flat[index] ?? ""] = flat[index + 1] ?? "";
  }
  return record;
}

/** A stored hash (values JSON-encoded) → a validated Payout, or CorruptRecordError. */
export function decodePayout(payoutId: string, hash: Readonly<Record<string, string>>): Payout {
  const record: Record<string, unknown> = {};
  const problems: string[] = [];
  // for…in, not Object.entries: no [field, value] array per field (a move's reply is decoded
  // on every move). `hash` is a plain record of own fields (pairsToRecord, ioredis's HGETALL).
  for (const field in hash) {
    try {
      record[field] = JSON.parse(hash[field] ?? "");
    } catch {
      problems.push(`${field}: not JSON`);
    }
  }
  if (problems.length > 0) throw new CorruptRecordError(payoutId, problems);
  const parsed = PayoutSchema.safeParse(record);
  if (!parsed.success) throw new CorruptRecordError(payoutId, describeIssues(parsed.error));
  if (parsed.data.id !== payoutId) {
    throw new CorruptRecordError(payoutId, [`id: stored under another id (${parsed.data.id})`]);
  }
  return parsed.data;
}

/**
 * The outbox keys a move queues with it: the payer's notice of a final status, and the
 * notices the caller asked for. A batch's row (`batchRow`) has no payer's notice of its
 * own: the batch's progress and summary tell its payer (the Redis script, which alone
 * knows the record, drops it there: `SETTLED_NOTICE_PREFIX`).
 */
export function noticesOfMove(
  payoutId: string,
  target: PayoutState,
  extra: readonly Notice[] = [],
  batchRow = false,
): string[] {
  const tellPayer = notifiesPayer(target) && !batchRow;
  const settled: Notice[] = tellPayer ? [{ kind: "settled", payoutId }] : [];
  return [...settled, ...extra].map(noticeKey);
}

/** How the payer's notice of a final status starts in the outbox (see `noticeKey`). */
export const SETTLED_NOTICE_PREFIX = "settled:";
