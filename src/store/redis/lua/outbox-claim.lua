--[[
  Claims the next due notice of the outbox (as due-claim.lua does with a limit of one) and,
  for a payer's notice of a final status (`settled:<payoutId>`), reads its payout in the
  same step, and whether its number is in the address book (its Save recipient button):
  the notifier's claim and its reads in one round trip.

  Input:
    KEYS[1]   the outbox (sorted set)
    KEYS[2]   the address book's numbers (hash: phone → how many aliases name it)

    ARGV[1]   nowMs
    ARGV[2]   leaseUntilMs
    ARGV[3]   the prefix of a payer's settled notice (`settled:`)
    ARGV[4]   the payout key prefix (the payout id is appended)

  Output:
    {} when nothing is due; {key} for a notice of another kind; {key, HGETALL, saved} for
    a settled notice (HGETALL empty when the payout is gone; saved 1 when its number is in
    the address book, else 0)

  The payout's key is built here from its prefix: only the notice's key names the payout.
  Fine on a single Redis (not Cluster), as payout-transition.lua.
]]

local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
local key = ids[1]
if not key then return {} end
redis.call('ZADD', KEYS[1], ARGV[2], key)
local prefix = ARGV[3]
if string.sub(key, 1, #prefix) ~= prefix then return {key} end
local record = ARGV[4] .. string.sub(key, #prefix + 1)
local saved = 0
local phone = redis.call('HGET', record, 'phone')
if phone then
  local ok, decoded = pcall(cjson.decode, phone)
  if ok and type(decoded) == 'string' then saved = redis.call('HEXISTS', KEYS[2], decoded) end
end
return {key, redis.call('HGETALL', record), saved}
