--[[
  Sets a person's step-up PIN if none is set (a reset removes the hash first): the hash, when,
  and no wrong tries; a lock left from before goes. One hash per person (keys.ts: `pin:`):
  `hash`, `setAtMs`, `tries` (wrong tries in a row, counted when a try begins) and
  `lockedUntilMs`.

  Input:
    KEYS[1] the person's PIN hash

    ARGV[1] the PIN's hash (argon2id)
    ARGV[2] now (ms)

  Output:
    1 when set now, 0 when one was set already
]]
if redis.call('HSETNX', KEYS[1], 'hash', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'setAtMs', ARGV[2], 'tries', 0)
redis.call('HDEL', KEYS[1], 'lockedUntilMs')
return 1
