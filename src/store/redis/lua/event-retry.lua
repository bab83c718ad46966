--[[
  Counts a failed try of an event and makes it due again later.

  Input:
    KEYS[1] due events
    KEYS[2] failures

    ARGV[1] id
    ARGV[2] when the next try is due (ms)
    ARGV[3] key prefix of events
    ARGV[4] the failure (JSON)
    ARGV[5] failures kept

  Output:
    1, or 0 when the event is gone
]]

local record = ARGV[3] .. 'event:' .. ARGV[1]
if redis.call('EXISTS', record) == 0 then return 0 end
redis.call('HINCRBY', record, 'attempts', 1)
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
return 1
