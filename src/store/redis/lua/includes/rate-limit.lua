--[[
  A sliding-window log of rate-limit grants (redis/rate-limiter.ts): one sorted-set member
  per grant, scored by its time on Redis's own clock, so replicas' clocks do not matter.
  Shared with the moves that take a slot in the same step as their own writes (a claim and
  its request's slot; a callback's admission and its re-read's).

  takeSlot(log, limit, windowMs, member): when fewer than `limit` grants happened in the
    last `windowMs`, records `member` now and returns 1, 0, now; else records nothing and
    returns 0, the ms (≥ 1) until the oldest grant leaves the window, now.
]]
local function takeSlot(log, limit, windowMs, member)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local window = tonumber(windowMs)
  redis.call('ZREMRANGEBYSCORE', log, '-inf', now - window)
  if redis.call('ZCARD', log) < tonumber(limit) then
    redis.call('ZADD', log, now, member)
    redis.call('PEXPIRE', log, window)
    return 1, 0, now
  end
  local oldest = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) + window - now
  if wait < 1 then wait = 1 end
  return 0, wait, now
end
