--[[
  Begins one try of a person's PIN: counted before the PIN is compared, so that tries sent at
  once are all counted, both in a row (`tries`) and in the sliding window (`window`: the
  tries' times, space-separated, those older than the window dropped). More tries begun than
  either limit allows lock the PIN there and then (both counts start again), and queue the
  admins' alert in the same step.

  Input:
    KEYS[1] the person's PIN hash
    KEYS[2] the outbox

    ARGV[1] now (ms)
    ARGV[2] the most wrong tries in a row
    ARGV[3] the lock's end (ms) if it locks now
    ARGV[4] the lock's notice (an outbox key)
    ARGV[5] the most wrong tries in the window
    ARGV[6] the window's start (ms): tries at or before it no longer count

  Output:
    {'none'} (no PIN set), {'locked', untilMs, '1' locked now | '0'}, or
    {'try', hash, unseen wrong tries, the last one's time (ms)}
]]
--!include wake.lua
local now, max = tonumber(ARGV[1]), tonumber(ARGV[2])
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock), '0'} end
local hash = redis.call('HGET', KEYS[1], 'hash')
if not hash then return {'none'} end
local tries = redis.call('HINCRBY', KEYS[1], 'tries', 1)
local start = tonumber(ARGV[6])
local window = {}
for at in string.gmatch(redis.call('HGET', KEYS[1], 'window') or '', '%d+') do
  if tonumber(at) > start then window[#window + 1] = at end
end
window[#window + 1] = ARGV[1]
if tries > max or #window > tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[1], 'lockedUntilMs', ARGV[3], 'tries', 0)
  redis.call('HDEL', KEYS[1], 'window')
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  wake(KEYS[2], 'outbox')
  return {'locked', ARGV[3], '1'}
end
redis.call('HSET', KEYS[1], 'window', table.concat(window, ' '))
local unseen = redis.call('HMGET', KEYS[1], 'unseenWrong', 'lastWrongAtMs')
return {'try', hash, unseen[1] or '0', unseen[2] or '0'}
