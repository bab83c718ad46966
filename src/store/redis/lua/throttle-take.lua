--[[
  Counts one action in a fixed window. The first action of a window sets its expiry (never a
  later one, which would stretch it).

  Input:
    KEYS[1] the throttle

    ARGV[1] limit
    ARGV[2] windowMs

  Output:
    1 when the action is within the limit, else 0
]]

local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if count <= tonumber(ARGV[1]) then return 1 end
return 0
