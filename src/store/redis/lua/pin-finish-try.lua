--[[
  Ends one try of a person's PIN with what the comparison found: a right PIN clears the wrong
  tries; a wrong one locks the PIN (and queues the admins' alert) when it was the last allowed.

  Input:
    KEYS[1] the person's PIN hash
    KEYS[2] the outbox

    ARGV[1] '1' right, '0' wrong
    ARGV[2] now (ms)
    ARGV[3] the most wrong tries in a row
    ARGV[4] the lock's end (ms) if it locks now
    ARGV[5] the lock's notice (an outbox key)

  Output:
    {'right'}, {'wrong', tries left}, or {'locked', untilMs, '1' locked now | '0'}
]]
local now, max = tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('HEXISTS', KEYS[1], 'hash') == 0 then
  -- Reset while the try ran: the PIN it was compared with is no longer the person's, so a
  -- right answer proves nothing (the person sets a new one).
  return {'wrong', tostring(max)}
end
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'tries', 0)
  return {'right'}
end
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock), '0'} end
local tries = tonumber(redis.call('HGET', KEYS[1], 'tries') or '0')
if tries >= max then
  redis.call('HSET', KEYS[1], 'lockedUntilMs', ARGV[4], 'tries', 0)
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  return {'locked', ARGV[4], '1'}
end
return {'wrong', tostring(max - tries)}
