--[[
  Sets a person's step-up PIN if none is set (a reset removes the hash first), no lock holds
  (a reset keeps one), and, after a reset, only with init data signed since the reset's second
  (`auth_date` is whole seconds): the hash, when, and no wrong tries. The first after a reset
  queues the admins' notice in the same step. One hash per person (keys.ts: `pin:`): `hash`,
  `setAtMs`, `tries` (wrong tries in a row, counted when a try begins), `window` (the tries'
  times in the sliding window), `unseenWrong` and `lastWrongAtMs` (wrong tries the person has
  not been told of), `lockedUntilMs`, `resetAtMs`.

  Input:
    KEYS[1] the person's PIN hash
    KEYS[2] the outbox

    ARGV[1] the PIN's hash (argon2id)
    ARGV[2] now (ms)
    ARGV[3] when the init data was signed (ms)
    ARGV[4] the admins' notice if it is the first after a reset (an outbox key)

  Output:
    {'set', '1' after a reset | '0'}, {'already'}, {'locked', untilMs} or {'stale'}
]]
--!include wake.lua
if redis.call('HEXISTS', KEYS[1], 'hash') == 1 then return {'already'} end
local now = tonumber(ARGV[2])
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock)} end
local resetAt = tonumber(redis.call('HGET', KEYS[1], 'resetAtMs') or '0')
if resetAt > 0 and tonumber(ARGV[3]) < math.floor(resetAt / 1000) * 1000 then
  return {'stale'}
end
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'setAtMs', ARGV[2], 'tries', 0)
redis.call('HDEL', KEYS[1], 'lockedUntilMs', 'resetAtMs')
if resetAt > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  wake(KEYS[2], 'outbox')
  return {'set', '1'}
end
return {'set', '0'}
