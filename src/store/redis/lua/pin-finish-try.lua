--[[
  Ends one try of a person's PIN with what the comparison found. A right PIN clears the wrong
  tries in a row, takes its own try out of the window, and queues the notice that tells the
  person of the wrong tries they had not been told of (as many as the try began with; any
  since wait for the next right one). A wrong one is counted as unseen, and locks the PIN
  (both counts start again, and the admins' alert is queued) when it was the last allowed in
  a row or in the window.

  Input:
    KEYS[1] the person's PIN hash
    KEYS[2] the outbox

    ARGV[1] '1' right, '0' wrong
    ARGV[2] now (ms)
    ARGV[3] the most wrong tries in a row
    ARGV[4] the lock's end (ms) if it locks now
    ARGV[5] the lock's notice (an outbox key)
    ARGV[6] the most wrong tries in the window
    ARGV[7] the window's start (ms): tries at or before it no longer count
    ARGV[8] when this try began (ms): its entry in the window
    ARGV[9] the unseen wrong tries the try began with (0: nothing to tell)
    ARGV[10] the notice that tells of them (an outbox key)

  Output:
    {'right'}, {'wrong', tries left}, or {'locked', untilMs, '1' locked now | '0'}
]]
--!include wake.lua
local now, max, windowMax = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6])
if redis.call('HEXISTS', KEYS[1], 'hash') == 0 then
  -- Reset while the try ran: the PIN it was compared with is no longer the person's, so a
  -- right answer proves nothing (the person sets a new one).
  return {'wrong', tostring(max)}
end
local start = tonumber(ARGV[7])
local window = {}
local mine = ARGV[1] == '1'
for at in string.gmatch(redis.call('HGET', KEYS[1], 'window') or '', '%d+') do
  if mine and at == ARGV[8] then
    mine = false
  elseif tonumber(at) > start then
    window[#window + 1] = at
  end
end
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'tries', 0, 'window', table.concat(window, ' '))
  local told = tonumber(ARGV[9])
  if told > 0 then
    local left = tonumber(redis.call('HINCRBY', KEYS[1], 'unseenWrong', -told))
    if left <= 0 then redis.call('HDEL', KEYS[1], 'unseenWrong', 'lastWrongAtMs') end
    redis.call('ZADD', KEYS[2], now, ARGV[10])
    wake(KEYS[2], 'outbox')
  end
  return {'right'}
end
redis.call('HINCRBY', KEYS[1], 'unseenWrong', 1)
redis.call('HSET', KEYS[1], 'lastWrongAtMs', ARGV[2])
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock), '0'} end
local tries = tonumber(redis.call('HGET', KEYS[1], 'tries') or '0')
if tries >= max or #window >= windowMax then
  redis.call('HSET', KEYS[1], 'lockedUntilMs', ARGV[4], 'tries', 0)
  redis.call('HDEL', KEYS[1], 'window')
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  wake(KEYS[2], 'outbox')
  return {'locked', ARGV[4], '1'}
end
return {'wrong', tostring(math.min(max - tries, windowMax - #window))}
