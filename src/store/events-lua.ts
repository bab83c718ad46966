/**
 * The scripts of the signed events' queue (redis-events.ts describes its keys). Each step
 * that moves an event is one script, so an event is never lost nor queued twice between
 * two of its keys.
 */
import { luaScript } from "./redis/scripts.js";

/**
 * KEYS: cursor, due, waiting. ARGV: the cursor expected ('' none; '*' any, for a replay),
 * the new cursor ('' keeps it), nowMs, record lifetime (ms), key prefix of events, then
 * per event: id, subject, createdMs, body. An event already waiting is left as it is.
 * Answers how many were queued, or -1 when the cursor moved (another replica did it).
 */
export const ENQUEUE_SCRIPT = luaScript(`
if ARGV[1] ~= '*' then
  local cursor = redis.call('GET', KEYS[1]) or ''
  if cursor ~= ARGV[1] then return -1 end
end
local now, ttl, prefix = ARGV[3], ARGV[4], ARGV[5]
local queued = 0
for i = 6, #ARGV, 4 do
  local id, subject, created, body = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local record = prefix .. 'event:' .. id
  if redis.call('EXISTS', record) == 0 then
    redis.call('HSET', record, 'body', body, 'chain', subject, 'createdMs', created, 'attempts', '0')
    redis.call('PEXPIRE', record, ttl)
    local chain = prefix .. 'chain:' .. subject
    if redis.call('RPUSH', chain, id) == 1 then redis.call('ZADD', KEYS[2], now, id) end
    redis.call('PEXPIRE', chain, ttl)
    redis.call('ZADD', KEYS[3], created, id)
    queued = queued + 1
  end
end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2]) end
return queued
`);

/**
 * KEYS: due, waiting, delivered, counts, failures. ARGV: id, nowMs, key prefix of events,
 * "delivered" | "dropped", a day (ms), the failure (JSON, '' none), failures kept.
 * The event leaves; the next of its payout or batch becomes due now.
 */
export const SETTLE_SCRIPT = luaScript(`
local id, now, prefix = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local record = prefix .. 'event:' .. id
local subject = redis.call('HGET', record, 'chain')
redis.call('DEL', record)
redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[2], id)
if subject then
  local chain = prefix .. 'chain:' .. subject
  redis.call('LREM', chain, 1, id)
  local following = redis.call('LINDEX', chain, 0)
  if following then redis.call('ZADD', KEYS[1], now, following) end
end
if ARGV[4] == 'delivered' then
  redis.call('ZADD', KEYS[3], now, id)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[5]))
else
  redis.call('HINCRBY', KEYS[4], 'dropped', 1)
end
if ARGV[6] ~= '' then
  redis.call('LPUSH', KEYS[5], ARGV[6])
  redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[7]) - 1)
end
return 1
`);

/**
 * KEYS: due, failures. ARGV: id, when the next try is due (ms), key prefix of events, the
 * failure (JSON), failures kept. Counts the try; 0 when the event is gone.
 */
export const RETRY_SCRIPT = luaScript(`
local record = ARGV[3] .. 'event:' .. ARGV[1]
if redis.call('EXISTS', record) == 0 then return 0 end
redis.call('HINCRBY', record, 'attempts', 1)
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
return 1
`);

/**
 * KEYS: state, outbox, failures. ARGV: nowMs, the admins' notice, the failure (JSON),
 * failures kept. The endpoint is disabled and the admins' notice queued in one step, once:
 * 0 when it was disabled already.
 */
export const DISABLE_SCRIPT = luaScript(`
if redis.call('HGET', KEYS[1], 'state') == 'disabled' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'disabled', 'sinceMs', ARGV[1], 'byId', '0')
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('LPUSH', KEYS[3], ARGV[3])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
return 1
`);
