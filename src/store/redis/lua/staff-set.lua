--[[
  Sets a staff member's role and origin. A role that changes (or a new member) is granted
  now; the same role set again keeps its grant time, so a restart's STAFF does not make
  everyone new.

  Input:
    KEYS[1] roles
    KEYS[2] origins
    KEYS[3] grant times

    ARGV[1] user id
    ARGV[2] role
    ARGV[3] origin (JSON, '' none)
    ARGV[4] grant time (ms)

  Output:
    1
]]

local before = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if before ~= ARGV[2] then redis.call('HSET', KEYS[3], ARGV[1], ARGV[4]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) else redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
