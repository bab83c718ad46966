--[[
  Gives a named lease up, only when it is ours.

  Input:
    KEYS[1] the lease

    ARGV[1] owner

  Output:
    1 when it was deleted, else 0
]]

if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
