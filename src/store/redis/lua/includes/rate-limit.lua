--[[
  A sliding-window log of rate-limit grants (redis/rate-limiter.ts): one sorted-set member
  per grant, scored by its time on Redis's own clock, so replicas' clocks do not matter.
  Shared with the moves that take a slot in the same step as their own writes (a claim and
  its request's slot; a callback's admission and its re-read's).

  takeSlot(log, limit, windowMs, member, backgroundLimit): when fewer than `limit` grants
    happened in the last `windowMs`, records `member` now and returns 1, 0, now; else
    records nothing and returns 0, the ms (≥ 1) until the oldest grant leaves the window,
    now. With a `backgroundLimit` (not nil, not ''), the grant is background work's, which
    leaves people a share of the window (payments/rate-limiter.ts, grantLimits; `limit` is
    then the lower one background work keeps to): background grants are also logged in
    `log .. ':background'`, and one is granted only while fewer than `backgroundLimit` of
    them are in the window too. People's grants count in the whole log only, so what they
    take does not shrink background work's share.
    (That second key is built here, not passed: fine on a single Redis, not on Cluster.)
]]
local function takeSlot(log, limit, windowMs, member, backgroundLimit)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local window = tonumber(windowMs)
  local logs = {{log, tonumber(limit)}}
  if backgroundLimit and backgroundLimit ~= '' then
    logs[2] = {log .. ':background', tonumber(backgroundLimit)}
  end
  local wait = 0
  for _, entry in ipairs(logs) do
    redis.call('ZREMRANGEBYSCORE', entry[1], '-inf', now - window)
    if redis.call('ZCARD', entry[1]) >= entry[2] then
      local oldest = redis.call('ZRANGE', entry[1], 0, 0, 'WITHSCORES')
      local untilFree = tonumber(oldest[2]) + window - now
      if untilFree < 1 then untilFree = 1 end
      if untilFree > wait then wait = untilFree end
    end
  end
  if wait > 0 then return 0, wait, now end
  for _, entry in ipairs(logs) do
    redis.call('ZADD', entry[1], now, member)
    redis.call('PEXPIRE', entry[1], window)
  end
  return 1, 0, now
end
