--[[
  The payouts created in a period whose words begin with each word looked for, newest first,
  with their records: read from the index of words (payout-create.lua writes it). Each word
  looked for is widened to the indexed words it begins (`ngo` → `ngono`, `ngoa`, …) and their
  indexes united; the words looked for are then intersected. A word looked for that begins
  more than options.maxWords indexed words, or whose words hold more than options.maxEntries
  entries together, is too broad to widen (a union that size would hold Redis up): it is
  left out here (the caller checks every record against all the words), and when every word
  is too broad nothing is read. Scratch keys are deleted before the script returns.

  Input:
    KEYS[1]   the words (score 0, read by prefix)
    KEYS[2]   scratch: the intersection
    KEYS[3..] scratch: one union per word looked for, in the order of options.words

    ARGV[1]   options (JSON): words (folded words looked for, an array), wordPrefix (a
              word's index key prefix), fromMs, toMs, offset (matches skipped, newest
              first), limit (records read at most), maxWords (indexed words one word looked
              for may widen to), maxEntries (entries their indexes may hold together),
              payoutPrefix (payout key prefix)

  Output:
    {'too_broad'} | {'found', total (index entries in the period), exact (1: no word was
    left out, 0), id, HGETALL, id, …} (an entry whose record is gone is counted in total
    but not returned)
]]

local o = cjson.decode(ARGV[1])
local maxWords = tonumber(o.maxWords)
local maxEntries = tonumber(o.maxEntries)
local sources = {}
local exact = 1
for i, wanted in ipairs(o.words) do
  local found = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. wanted, '[' .. wanted .. '\255',
    'LIMIT', 0, maxWords + 1)
  if #found == 0 then
    redis.call('DEL', unpack(KEYS, 2))
    return {'found', 0, 1}
  end
  if #found == 1 then
    sources[#sources + 1] = o.wordPrefix .. found[1]
  else
    local entries = 0
    if #found <= maxWords then
      for _, word in ipairs(found) do entries = entries + redis.call('ZCARD', o.wordPrefix .. word) end
    end
    if #found <= maxWords and entries <= maxEntries then
      local args = {'ZUNIONSTORE', KEYS[2 + i], #found}
      for _, word in ipairs(found) do args[#args + 1] = o.wordPrefix .. word end
      args[#args + 1] = 'AGGREGATE'
      args[#args + 1] = 'MAX'
      redis.call(unpack(args))
      sources[#sources + 1] = KEYS[2 + i]
    else
      exact = 0
    end
  end
end
if #sources == 0 then return {'too_broad'} end
local source = sources[1]
if #sources > 1 then
  local args = {'ZINTERSTORE', KEYS[2], #sources}
  for _, key in ipairs(sources) do args[#args + 1] = key end
  args[#args + 1] = 'AGGREGATE'
  args[#args + 1] = 'MAX'
  redis.call(unpack(args))
  source = KEYS[2]
end
local total = redis.call('ZCOUNT', source, o.fromMs, o.toMs)
local ids = redis.call('ZREVRANGEBYSCORE', source, o.toMs, o.fromMs, 'LIMIT', o.offset, o.limit)
local reply = {'found', total, exact}
for _, id in ipairs(ids) do
  local fields = redis.call('HGETALL', o.payoutPrefix .. id)
  if #fields > 0 then
    reply[#reply + 1] = id
    reply[#reply + 1] = fields
  end
end
redis.call('DEL', unpack(KEYS, 2))
return reply
