--[[
  Takes a named lease, or extends it when it is ours already.

  Input:
    KEYS[1] the lease

    ARGV[1] owner
    ARGV[2] ttlMs

  Output:
    1 when the lease is ours now, else 0
]]

local current = redis.call('GET', KEYS[1])
if current == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
