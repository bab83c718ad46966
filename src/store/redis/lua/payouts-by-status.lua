--[[
  A page of one status group's index (everyone's or an initiator's), newest first, with the
  records: entries created before the retention leave the index first. An entry whose record
  is gone (expired) is skipped, and stays until the retention trims it, so that pages do not
  shift under a reader.

  Input:
    KEYS[1] the status group's index

    ARGV[1] cutoffMs (entries created before it go)
    ARGV[2] fromMs
    ARGV[3] toMs
    ARGV[4] offset
    ARGV[5] limit
    ARGV[6] payout key prefix

  Output:
    {total (entries from fromMs to toMs), id, HGETALL, id, HGETALL, …}
]]

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
local reply = {redis.call('ZCOUNT', KEYS[1], ARGV[2], ARGV[3])}
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[3], ARGV[2], 'LIMIT', ARGV[4], ARGV[5])
for _, id in ipairs(ids) do
  local fields = redis.call('HGETALL', ARGV[6] .. id)
  if #fields > 0 then
    reply[#reply + 1] = id
    reply[#reply + 1] = fields
  end
end
return reply
