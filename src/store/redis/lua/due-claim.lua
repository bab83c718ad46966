--[[
  Claims the due ids of a schedule: each is re-scored to the end of its lease, so no other
  worker takes it meanwhile.

  Input:
    KEYS[1] the schedule (sorted set)

    ARGV[1] nowMs
    ARGV[2] limit
    ARGV[3] leaseUntilMs

  Output:
    the claimed ids, earliest first
]]

local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[3], id) end
return ids
