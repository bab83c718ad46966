--[[
  Extends a named lease that is still ours.

  Input:
    KEYS[1] the lease

    ARGV[1] owner
    ARGV[2] ttlMs

  Output:
    1 when it was still ours and is extended, else 0
]]

if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
