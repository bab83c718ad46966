--[[
  An event leaves the queue (delivered or dropped); the next of its payout or batch becomes
  due now.

  Input:
    KEYS[1] due events
    KEYS[2] waiting events
    KEYS[3] delivered events
    KEYS[4] counts
    KEYS[5] failures

    ARGV[1] options (JSON, every value a string): id, nowMs, prefix (key prefix of events),
            outcome ('delivered' | 'dropped'), dayMs (how long delivered ones are kept),
            failuresKept
    ARGV[2] the failure (JSON, '' none)

  Output:
    1
]]

local o = cjson.decode(ARGV[1])
local id, now, prefix = o.id, tonumber(o.nowMs), o.prefix
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
if o.outcome == 'delivered' then
  redis.call('ZADD', KEYS[3], now, id)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(o.dayMs))
else
  redis.call('HINCRBY', KEYS[4], 'dropped', 1)
end
if ARGV[2] ~= '' then
  redis.call('LPUSH', KEYS[5], ARGV[2])
  redis.call('LTRIM', KEYS[5], 0, tonumber(o.failuresKept) - 1)
end
return 1
