--[[
  A sliding-window log (one sorted-set member per grant, scored by its time on Redis's own
  clock): grants when fewer than `limit` grants happened in the last `windowMs`.

  Input:
    KEYS[1] the sorted set

    ARGV[1] limit
    ARGV[2] windowMs
    ARGV[3] member (unique per call)

  Output:
    {1, 0, nowMs} when granted, {0, retryInMs, nowMs} when not
]]

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0, now}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
return {0, wait, now}
