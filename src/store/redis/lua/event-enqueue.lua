--[[
  Queues signed events (redis/events.ts describes the keys) behind the earlier events of
  their payout or batch, if the cursor is still where the caller read it. An event already
  waiting is left as it is.

  Input:
    KEYS[1]   the cursor
    KEYS[2]   due events
    KEYS[3]   waiting events

    ARGV[1]   the cursor expected ('' none; '*' any, for a replay)
    ARGV[2]   the new cursor ('' keeps it)
    ARGV[3]   nowMs
    ARGV[4]   record lifetime (ms)
    ARGV[5]   key prefix of events
    ARGV[6..] per event: id, subject, createdMs, body

  Output:
    how many were queued, or -1 when the cursor moved (another replica did it)
]]

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
