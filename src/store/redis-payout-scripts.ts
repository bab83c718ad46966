/**
 * The Lua scripts of RedisPayoutStore. Each runs atomically in Redis, so a check and the
 * writes that depend on it cannot be interleaved with another replica's. Redis does not
 * roll a script back on error: every check that can fail comes before the first write.
 * Values in the payout hash are JSON-encoded (a state is stored as `"pending"`).
 */
import {
  expiresInState,
  givesBack,
  type PayoutEvent,
  sourcesOf,
  TRACKED_STATES,
  targetOf,
} from "../model/lifecycle.js";
import type { PayoutPatch } from "../model/payout.js";
import { auditMinId, payoutDraftJson } from "./audit-codec.js";
import { AUDIT_LUA } from "./audit-lua.js";
import type { Keys } from "./keys.js";
import { encodeFields, noticesOfMove, SETTLED_NOTICE_PREFIX } from "./payout-codec.js";
import { luaScript } from "./redis/scripts.js";
import { SPENDING_KEPT_MS, SPENDING_LUA } from "./redis/spending.js";
import type { TransitionOptions } from "./types.js";

/**
 * KEYS: record, outbox, audit stream, tracking schedule, then the state sets of the tracked
 *       states.
 * ARGV: id, target (JSON), claimId (JSON, or "" for none), nowMs, expires (1/0),
 *       retentionMs, m, payment index key prefix, paymentId of the patch (raw, or ""),
 *       audit draft (JSON), audit min id, expected initiatorId (JSON, or ""), not expired at
 *       (ms, or ""), the audit draft of the submission when the move stamps sentAtMs (JSON, or
 *       ""), first poll at (ms, or ""), spending key prefix, reserved day (or ""), payer cap
 *       (or ""), merchant cap (or ""), gives back (1/0), spending kept (ms), amount at which
 *       a second person is needed (or ""), kind that reserves (JSON, or ""), batch key
 *       prefix, staff key, staff grant times key, roles the initiator may have (",a,b,", or
 *       ""), deciding user id (or ""), roles the decider may have (",a,b,", or ""), n, n source
 *       states (JSON), m outbox keys (notices queued with the move), the tracked states
 *       (JSON, in KEYS order), then the fields to set as field/value pairs (state,
 *       updatedAtMs and claimId included; limitDay is set here when reserved). A move that is made is audited with
 *       the states before and after; a resend or a refusal is not.
 * Returns {"not_found"} | {"corrupt"} | {"over_limit", HGETALL, "payer"|"merchant", used} |
 *         {"unchanged"|"wrong_state"|"payment_taken"|"not_initiator"|"expired"|"needs_approval"|
 *         "batch_stopped"|"applied", HGETALL}.
 * "batch_stopped": a claim (a move to `submitting`) of a batch's row whose batch is no
 * longer `running` (stopped, or gone).
 * "over_limit": the reservation would pass a cap of its day (see SPENDING_LUA).
 * "payment_taken": the patch's paymentId is already indexed to another payout. One payment
 * settles one payout, checked here so two concurrent moves cannot both take it.
 *
 * The payment index and spending keys are built here from their prefix rather than passed
 * in KEYS: a move without a paymentId in its patch (a settlement) must still give the
 * index the record's lifetime, and a move that gives back must find the day the payout
 * reserved; only the script knows the stored values at that moment. Fine on a single
 * Redis (not Cluster).
 */
export const TRANSITION_SCRIPT = luaScript(`${AUDIT_LUA}${SPENDING_LUA}
local record = KEYS[1]
if redis.call('EXISTS', record) == 0 then return {'not_found'} end
local id, target, claim, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local expires, retention, noticeCount = ARGV[5] == '1', ARGV[6], tonumber(ARGV[7])
local paymentPrefix, paymentId = ARGV[8], ARGV[9]
local auditDraft, auditMinId = ARGV[10], ARGV[11]
local expectedInitiator, notExpiredAt, submitDraft, trackAt = ARGV[12], ARGV[13], ARGV[14], ARGV[15]
local spendPrefix, reserveDay, payerCap, merchantCap = ARGV[16], ARGV[17], ARGV[18], ARGV[19]
local givingBack, spendKept = ARGV[20] == '1', ARGV[21]
local amountBelow, reserveKind, batchPrefix = ARGV[22], ARGV[23], ARGV[24]
local staffKey, grantedKey, initiatorRoles = ARGV[25], ARGV[26], ARGV[27]
local deciderId, deciderRoles = ARGV[28], ARGV[29]
local cursor = 30
local sources = {}
for _ = 1, tonumber(ARGV[cursor]) do
  cursor = cursor + 1
  sources[ARGV[cursor]] = true
end
cursor = cursor + 1
local notices = {}
-- A batch's row has no payer's notice of its own: its batch tells the payer.
local batchRow = redis.call('HEXISTS', record, 'batchId') == 1
for _ = 1, noticeCount do
  local notice = ARGV[cursor]
  if not (batchRow and string.sub(notice, 1, ${SETTLED_NOTICE_PREFIX.length}) == '${SETTLED_NOTICE_PREFIX}') then
    notices[#notices + 1] = notice
  end
  cursor = cursor + 1
end
local stateSets = {}
for k = 5, #KEYS do
  stateSets[ARGV[cursor]] = KEYS[k]
  cursor = cursor + 1
end

local current = redis.call('HGET', record, 'state')
if expectedInitiator ~= '' and redis.call('HGET', record, 'initiatorId') ~= expectedInitiator then
  return {'not_initiator', redis.call('HGETALL', record)}
end
-- A resend of a call that already applied finds its own claim. The claim is written
-- again (same value) so that a durability wait after this call covers the record even on
-- a connection that did not make the first write.
if claim ~= '' and current == target and redis.call('HGET', record, 'claimId') == claim then
  redis.call('HSET', record, 'claimId', claim)
  return {'unchanged', redis.call('HGETALL', record)}
end
if not sources[current] then return {'wrong_state', redis.call('HGETALL', record)} end
-- A batch's row is claimed only while its batch runs: once Stop has moved the batch on, no
-- row of it may leave, whatever a worker read a moment before.
if target == '"submitting"' and batchRow then
  local ok, batchId = pcall(cjson.decode, redis.call('HGET', record, 'batchId'))
  local raw = ok and type(batchId) == 'string' and redis.call('GET', batchPrefix .. batchId)
  local running = false
  if raw then
    local decoded, batch = pcall(cjson.decode, raw)
    running = decoded and type(batch) == 'table' and batch.state == 'running'
  end
  if not running then return {'batch_stopped', redis.call('HGETALL', record)} end
end
-- Standing is read from the staff record now, in this step: a payer removed or demoted
-- since asking is refused by every claim; an approver made after the ask cannot decide.
if initiatorRoles ~= '' then
  local role = redis.call('HGET', staffKey, redis.call('HGET', record, 'initiatorId'))
  if not role or not string.find(initiatorRoles, ',' .. role .. ',', 1, true) then
    return {'initiator_not_allowed', redis.call('HGETALL', record)}
  end
end
if deciderId ~= '' then
  local role = redis.call('HGET', staffKey, deciderId)
  if not role or not string.find(deciderRoles, ',' .. role .. ',', 1, true) then
    return {'decider_not_allowed', redis.call('HGETALL', record)}
  end
  local granted = tonumber(redis.call('HGET', grantedKey, deciderId) or '0') or 0
  local asked = tonumber(redis.call('HGET', record, 'createdAtMs'))
  if asked and granted > asked then return {'decider_too_new', redis.call('HGETALL', record)} end
end
if notExpiredAt ~= '' then
  local expiresAt = tonumber(redis.call('HGET', record, 'expiresAtMs'))
  if expiresAt and expiresAt < tonumber(notExpiredAt) then
    return {'expired', redis.call('HGETALL', record)}
  end
end
local amount = tonumber(redis.call('HGET', record, 'amount'))
if amountBelow ~= '' and amount and amount >= tonumber(amountBelow) then
  return {'needs_approval', redis.call('HGETALL', record)}
end
if reserveKind ~= '' and redis.call('HGET', record, 'kind') ~= reserveKind then reserveDay = '' end
-- A payout that already holds its amount on a day (asked for approval yesterday, approved
-- today) moves the hold to the day of this move: checked against that day's caps, and the
-- old day given back in the same step. Held on this very day already: nothing to move.
local heldDay = reservedDayOf(record)
if reserveDay ~= '' and heldDay == reserveDay then reserveDay = '' end

if paymentId ~= '' then
  local owner = redis.call('GET', paymentPrefix .. paymentId)
  if owner and owner ~= id then return {'payment_taken', redis.call('HGETALL', record)} end
end
if paymentId == '' then
  local stored = redis.call('HGET', record, 'paymentId')
  if stored then
    local ok, decoded = pcall(cjson.decode, stored)
    if not ok or type(decoded) ~= 'string' then return {'corrupt'} end
    paymentId = decoded
  end
end
local spender = 'user:' .. redis.call('HGET', record, 'initiatorId')
if reserveDay ~= '' then
  local limit, used = overLimit(spendPrefix .. reserveDay, spender, amount, payerCap, merchantCap)
  if limit then return {'over_limit', redis.call('HGETALL', record), limit, used} end
end
local releasedDay = (givingBack or reserveDay ~= '') and heldDay

redis.call('HSET', record, unpack(ARGV, cursor))
if reserveDay ~= '' then
  spend(spendPrefix .. reserveDay, spender, amount, spendKept)
  redis.call('HSET', record, 'limitDay', cjson.encode(reserveDay))
end
if releasedDay then giveBack(spendPrefix .. releasedDay, spender, amount) end
if expires then redis.call('PEXPIRE', record, retention) else redis.call('PERSIST', record) end
if stateSets[current] then redis.call('SREM', stateSets[current], id) end
if stateSets[target] then redis.call('SADD', stateSets[target], id) end
if paymentId ~= '' then
  local index = paymentPrefix .. paymentId
  if expires then redis.call('SET', index, id, 'PX', retention) else redis.call('SET', index, id) end
end
for _, notice in ipairs(notices) do redis.call('ZADD', KEYS[2], now, notice) end
if trackAt ~= '' then redis.call('ZADD', KEYS[4], trackAt, id) end
audit(KEYS[3], auditMinId, auditDraft, current, target, record)
-- The request leaves right after this move: stamped and audited with it.
if submitDraft ~= '' then stampSent(KEYS[3], auditMinId, submitDraft, record) end
return {'applied', redis.call('HGETALL', record)}
`);

/**
 * The last check before a request leaves: the payout is still `submitting` under this
 * claim. Stamps `sentAtMs` with Redis's own clock, so every replica measures a send time
 * the same way, and audits the submission. KEYS: record, audit stream. ARGV: claimId
 * (JSON), audit draft (JSON), audit min id.
 * Returns {"sending", ms} | {"moved", HGETALL} | {"not_found"}.
 */
export const MARK_SENDING_SCRIPT = luaScript(`${AUDIT_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'not_found'} end
if redis.call('HGET', KEYS[1], 'state') ~= '"submitting"' or redis.call('HGET', KEYS[1], 'claimId') ~= ARGV[1] then
  return {'moved', redis.call('HGETALL', KEYS[1])}
end
local ms = stampSent(KEYS[2], ARGV[3], ARGV[2], KEYS[1])
return {'sending', string.format('%d', ms)}
`);

/**
 * KEYS: record, payment index of the patch's paymentId.
 * ARGV: id, has paymentId (1/0), then field/value pairs.
 * Returns nil when the record does not exist, else HGETALL after the change.
 */
export const UPDATE_SCRIPT = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if ARGV[2] == '1' then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl) else redis.call('SET', KEYS[2], ARGV[1]) end
end
return redis.call('HGETALL', KEYS[1])
`);

/** A boolean as the scripts take it. */
export function flag(value: boolean): string {
  return value ? "1" : "0";
}

/** Keys and arguments of one TRANSITION_SCRIPT call (see its layout above). */
export function transitionCall(call: {
  keys: Keys;
  id: string;
  event: PayoutEvent;
  /** Checked already. */
  patch: PayoutPatch;
  options: TransitionOptions;
  nowMs: number;
  retentionMs: number;
}): { keys: string[]; args: (string | number)[] } {
  const { keys: k, id, event, patch, options, nowMs, retentionMs } = call;
  const expect = options.expect;
  const target = targetOf(event);
  const claim = options.claimId;
  const reserve = options.reserve;
  const fields = {
    ...patch,
    state: target,
    updatedAtMs: nowMs,
    ...(claim === undefined ? {} : { claimId: claim }),
  };
  const sources = sourcesOf(event);
  const notices = noticesOfMove(id, target, options.notices);
  return {
    keys: [
      k.payout(id),
      k.outbox(),
      k.auditLog(),
      k.tracking(),
      ...TRACKED_STATES.map((state) => k.stateSet(state)),
    ],
    args: [
      id,
      JSON.stringify(target),
      claim === undefined ? "" : JSON.stringify(claim),
      nowMs,
      flag(expiresInState(target)),
      retentionMs,
      notices.length,
      k.paymentIndex(""),
      patch.paymentId ?? "",
      payoutDraftJson(id, event, nowMs, options.actor, options.auditDetails),
      auditMinId(nowMs, retentionMs),
      expect?.initiatorId === undefined ? "" : JSON.stringify(expect.initiatorId),
      expect?.notExpiredAtMs ?? "",
      options.stampSentAtMs ? payoutDraftJson(id, "submit", nowMs, options.actor, undefined) : "",
      options.trackAtMs ?? "",
      k.spending(""),
      reserve?.day ?? "",
      reserve?.payerCapXaf ?? "",
      reserve?.merchantCapXaf ?? "",
      flag(givesBack(target)),
      SPENDING_KEPT_MS,
      expect?.amountBelowXaf ?? "",
      reserve === undefined ? "" : JSON.stringify(reserve.kind),
      k.batch(""),
      k.staff(),
      k.staffGranted(),
      expect?.initiatorRoles === undefined ? "" : `,${expect.initiatorRoles.join(",")},`,
      expect?.decider === undefined ? "" : String(expect.decider.userId),
      expect?.decider === undefined ? "" : `,${expect.decider.roles.join(",")},`,
      sources.length,
      ...sources.map((state) => JSON.stringify(state)),
      ...notices,
      ...TRACKED_STATES.map((state) => JSON.stringify(state)),
      ...encodeFields(fields),
    ],
  };
}
