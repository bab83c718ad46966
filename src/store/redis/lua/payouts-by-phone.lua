--[[
  A page of the payouts to one number, newest first, of the records still there. Read only:
  an entry whose record is gone stays until the retention trims it, so that pages do not
  shift under a reader.

  Input:
    KEYS[1] the number's index

    ARGV[1] sinceMs
    ARGV[2] offset
    ARGV[3] limit
    ARGV[4] payout key prefix

  Output:
    {id, HGETALL, id, HGETALL, ...}
]]

local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[1], 'LIMIT', ARGV[2], ARGV[3])
local found = {}
for _, id in ipairs(ids) do
  local fields = redis.call('HGETALL', ARGV[4] .. id)
  if #fields > 0 then
    found[#found + 1] = id
    found[#found + 1] = fields
  end
end
return found
