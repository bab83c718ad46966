--[[
  Resets a person's step-up PIN: forgets the hash and every try, keeps a lock until it ends
  (a reset is no way round one), notes when (the next PIN needs init data signed since),
  and queues the notice to the person and the admins in the same step.

  Input:
    KEYS[1] the person's PIN hash
    KEYS[2] the outbox

    ARGV[1] now (ms)
    ARGV[2] the reset's notice (an outbox key)

  Output:
    1 when reset now, 0 when no PIN was set
]]
--!include wake.lua
if redis.call('HEXISTS', KEYS[1], 'hash') == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'hash', 'setAtMs', 'tries', 'window', 'unseenWrong', 'lastWrongAtMs')
redis.call('HSET', KEYS[1], 'resetAtMs', ARGV[1])
redis.call('ZADD', KEYS[2], tonumber(ARGV[1]), ARGV[2])
wake(KEYS[2], 'outbox')
return 1
