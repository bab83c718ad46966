--[[
  Sets fields of an existing payout without moving it; a paymentId it sets is indexed for
  the record's remaining lifetime.

  Input:
    KEYS[1]   the payout record
    KEYS[2]   the payment index of the patch's paymentId

    ARGV[1]   id
    ARGV[2]   has paymentId ('1'/'0')
    ARGV[3..] field/value pairs

  Output:
    nil when the record does not exist, else HGETALL after the change
]]

if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if ARGV[2] == '1' then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl) else redis.call('SET', KEYS[2], ARGV[1]) end
end
return redis.call('HGETALL', KEYS[1])
