--[[
  A sliding-window log (one sorted-set member per grant, scored by its time on Redis's own
  clock): grants when fewer than `limit` grants happened in the last `windowMs` and, when
  paced, fewer than `paceCount` in the last `paceWindowMs` (background work is spread at
  the limit's own rate, so that what a person takes from the reserve comes back soon).

  Input:
    KEYS[1] the sorted set

    ARGV[1] limit
    ARGV[2] windowMs
    ARGV[3] member (unique per call)
    ARGV[4] paceCount (0: not paced)
    ARGV[5] paceWindowMs

  Output:
    {1, 0, nowMs} when granted, {0, retryInMs, nowMs} when not
]]

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local paceCount = tonumber(ARGV[4])
local paceWindow = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) + window - now
  if wait < 1 then wait = 1 end
  return {0, wait, now}
end
if paceCount > 0 then
  local nth = redis.call('ZREVRANGE', KEYS[1], paceCount - 1, paceCount - 1, 'WITHSCORES')
  if nth[2] and tonumber(nth[2]) > now - paceWindow then
    local wait = tonumber(nth[2]) + paceWindow - now
    if wait < 1 then wait = 1 end
    return {0, wait, now}
  end
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, 0, now}
