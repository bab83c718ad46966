/**
 * Creating a payout on Redis, and reading the payouts to one number. A creation is one
 * script: the record, its indexes (its initiator's, everyone's and its number's history,
 * its state set, its payment), its audit entry, and its initiator's open prompt in its chat
 * (the one it replaces is answered, with that one's state, so that it can be retired).
 */
import { z } from "zod";
import type { Actor } from "../model/audit.js";
import { expiresInState, isTracked, type PayoutState } from "../model/lifecycle.js";
import type { Payout } from "../model/payout.js";
import { auditMinId, payoutDraftJson } from "./audit-codec.js";
import { AUDIT_LUA } from "./audit-lua.js";
import type { Keys } from "./keys.js";
import { luaScript } from "./lua.js";
import { encodeFields, recordLifetimeMs } from "./payout-codec.js";
import { flag } from "./redis-payout-scripts.js";

/**
 * KEYS: record, user index, all index, state set of the payout's state, payment index,
 *       audit stream, phone index, the initiator's open prompt in the chat.
 * ARGV: id, createdAtMs, cutoffMs (index entries older go), retentionMs, expires (1/0),
 *       tracked (1/0), has paymentId (1/0), the record's lifetime (ms; an unconfirmed
 *       prompt's is short, and so is its open-prompt mark), audit draft (JSON), audit min
 *       id, payout key prefix, then the fields as field/value pairs.
 * Returns {0} when the id exists (nothing written); {1} when stored (and audited); {1, id,
 * state} when it also replaced that open prompt (its state JSON, "" when it is gone). A
 * batch's row (a record with `batchId`) is no one's open prompt.
 */
const CREATE_SCRIPT = luaScript(`${AUDIT_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
local id, createdAt, cutoff, retention = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local expires = ARGV[5] == '1'
redis.call('HSET', KEYS[1], unpack(ARGV, 12))
audit(KEYS[6], ARGV[10], ARGV[9], false, redis.call('HGET', KEYS[1], 'state'), KEYS[1])
if expires then redis.call('PEXPIRE', KEYS[1], ARGV[8]) end
for _, index in ipairs({KEYS[2], KEYS[3], KEYS[7]}) do
  redis.call('ZADD', index, createdAt, id)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. cutoff)
end
-- The newest entry of a user's (or a number's) history is this one: the index outlives
-- it by nothing.
redis.call('PEXPIRE', KEYS[2], retention)
redis.call('PEXPIRE', KEYS[7], retention)
if ARGV[6] == '1' then redis.call('SADD', KEYS[4], id) end
if ARGV[7] == '1' then
  if expires then redis.call('SET', KEYS[5], id, 'PX', retention) else redis.call('SET', KEYS[5], id) end
end
if redis.call('HEXISTS', KEYS[1], 'batchId') == 1 then return {1} end
local previous = redis.call('SET', KEYS[8], id, 'PX', ARGV[8], 'GET')
if previous and previous ~= id then
  return {1, previous, redis.call('HGET', ARGV[11] .. previous, 'state') or ''}
end
return {1}
`);

/**
 * KEYS: phone index. ARGV: sinceMs, offset, limit, payout key prefix.
 * Returns {id, HGETALL, id, HGETALL, …}, newest first, of the records still there. Read
 * only: an entry whose record is gone stays until the retention trims it, so that pages
 * do not shift under a reader.
 */
/** Built once (a zod schema costs far more to build than to run). */
const ListByPhoneReplySchema = z.array(z.union([z.string(), z.array(z.string())]));

const LIST_BY_PHONE_SCRIPT = luaScript(`
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[1], 'LIMIT', ARGV[2], ARGV[3])
local found = {}
for _, id in ipairs(ids) do
  local fields = redis.call('HGETALL', ARGV[4] .. id)
  if #fields > 0 then
    found[#found + 1] = id
    found[#found + 1] = fields
  end
end
return found
`);

const CreateReplySchema = z.union([
  z.tuple([z.literal(0)]),
  z.tuple([z.literal(1)]),
  z.tuple([z.literal(1), z.string(), z.string()]),
]);

/** What a creation replaced: its initiator's open prompt in the chat, and its state then. */
export type ReplacedPrompt = { id: string; state: PayoutState | null } | null;

export const createScript = {
  script: CREATE_SCRIPT,

  /** Keys and arguments of one creation (see CREATE_SCRIPT). */
  call(k: Keys, record: Payout, nowMs: number, retentionMs: number, actor: Actor | undefined) {
    return {
      keys: [
        k.payout(record.id),
        k.userPayouts(record.initiatorId),
        k.allPayouts(),
        k.stateSet(record.state),
        k.paymentIndex(record.paymentId ?? ""),
        k.auditLog(),
        k.phonePayouts(record.phone),
        k.prompt(record.chatId, record.initiatorId),
      ],
      args: [
        record.id,
        record.createdAtMs,
        nowMs - retentionMs,
        retentionMs,
        flag(expiresInState(record.state)),
        flag(isTracked(record.state)),
        flag(record.paymentId !== undefined),
        recordLifetimeMs(record, nowMs, retentionMs) ?? retentionMs,
        payoutDraftJson(record.id, "prompt", nowMs, actor, undefined),
        auditMinId(nowMs, retentionMs),
        k.payout(""),
        ...encodeFields(record),
      ],
    };
  },

  /** Whether the payout was stored, and the prompt it replaced. */
  reply(reply: unknown, readState: (json: string) => PayoutState | null) {
    const parsed = CreateReplySchema.parse(reply);
    if (parsed[0] === 0) return { stored: false, replaced: null };
    const [, id, state] = parsed;
    const replaced: ReplacedPrompt =
      id === undefined ? null : { id, state: readState(state ?? "") };
    return { stored: true, replaced };
  },
};

export const listByPhoneScript = {
  script: LIST_BY_PHONE_SCRIPT,

  call(k: Keys, phone: string, page: { sinceMs: number; offset: number; limit: number }) {
    return {
      keys: [k.phonePayouts(phone)],
      args: [page.sinceMs, page.offset, page.limit, k.payout("")],
    };
  },

  /** The records, as [id, field/value pairs], newest first. */
  reply(reply: unknown): Array<[string, string[]]> {
    const flat = ListByPhoneReplySchema.parse(reply);
    const records: Array<[string, string[]]> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const id = flat[index];
      const fields = flat[index + 1];
      if (typeof id === "string" && Array.isArray(fields)) records.push([id, fields]);
    }
    return records;
  },
};
