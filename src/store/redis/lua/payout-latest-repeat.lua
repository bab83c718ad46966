--[[
  The duplicate rule's question in one step: the newest payout to one number, created at
  `sinceMs` or later and among the newest `lookback` of them, of this amount and kind, in a
  state the rule counts, that is not the payout asked about nor one skipped by id prefix.
  Only that payout's record is returned: the others are compared here, not sent back.
  Read only.

  Input:
    KEYS[1] the number's index (payout ids by creation time)

    ARGV[1] sinceMs
    ARGV[2] lookback: how many of the newest entries are looked at
    ARGV[3] payout key prefix
    ARGV[4] amount, as stored (JSON)
    ARGV[5] kind, as stored (JSON)
    ARGV[6] the states that do not count, as stored (JSON), as a JSON array
    ARGV[7] an id to skip ('' for none)
    ARGV[8] an id prefix to skip ('' for none)

  Output:
    {id, HGETALL} of the payout found, or {} when none
]]

local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local excluded = {}
for _, state in ipairs(cjson.decode(ARGV[6])) do
  excluded[state] = true
end
local skip_id, skip_prefix = ARGV[7], ARGV[8]
for _, id in ipairs(ids) do
  local skipped = id == skip_id or (skip_prefix ~= '' and string.sub(id, 1, #skip_prefix) == skip_prefix)
  if not skipped then
    local key = ARGV[3] .. id
    local fields = redis.call('HMGET', key, 'amount', 'kind', 'state')
    if fields[1] == ARGV[4] and fields[2] == ARGV[5] and fields[3] and not excluded[fields[3]] then
      return {id, redis.call('HGETALL', key)}
    end
  end
end
return {}
