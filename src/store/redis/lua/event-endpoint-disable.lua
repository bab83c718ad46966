--[[
  Disables the events endpoint and queues the admins' notice in one step, once.

  Input:
    KEYS[1] the endpoint's state
    KEYS[2] the outbox
    KEYS[3] failures

    ARGV[1] nowMs
    ARGV[2] the admins' notice (outbox key)
    ARGV[3] the failure (JSON)
    ARGV[4] failures kept

  Output:
    1, or 0 when it was disabled already
]]

if redis.call('HGET', KEYS[1], 'state') == 'disabled' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'disabled', 'sinceMs', ARGV[1], 'byId', '0')
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('LPUSH', KEYS[3], ARGV[3])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
return 1
