--[[
  Begins one try of a person's PIN: counted before the PIN is compared, so that tries sent at
  once are all counted. More tries begun than the limit allows lock the PIN there and then,
  and queue the admins' alert in the same step.

  Input:
    KEYS[1] the person's PIN hash
    KEYS[2] the outbox

    ARGV[1] now (ms)
    ARGV[2] the most wrong tries in a row
    ARGV[3] the lock's end (ms) if it locks now
    ARGV[4] the lock's notice (an outbox key)

  Output:
    {'none'} (no PIN set), {'locked', untilMs, '1' locked now | '0'}, or {'try', hash}
]]
local now, max = tonumber(ARGV[1]), tonumber(ARGV[2])
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock), '0'} end
local hash = redis.call('HGET', KEYS[1], 'hash')
if not hash then return {'none'} end
local tries = redis.call('HINCRBY', KEYS[1], 'tries', 1)
if tries > max then
  redis.call('HSET', KEYS[1], 'lockedUntilMs', ARGV[3], 'tries', 0)
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  return {'locked', ARGV[3], '1'}
end
return {'try', hash}
