--[[
  Queues a day's digest once: the day's mark (SET NX) and the outbox entry in one step.

  Input:
    KEYS[1] the day's mark
    KEYS[2] the outbox

    ARGV[1] mark lifetime (ms)
    ARGV[2] nowMs
    ARGV[3] the notice (outbox key)

  Output:
    1 when queued now, else 0
]]
--!include wake.lua

if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  wake(KEYS[2], 'outbox')
  return 1
end
return 0
