--[[
  A creation index (a sorted set scored by createdAtMs) walked page by page inside Redis,
  oldest first, with a `{score}:{id}` cursor (as index-pages.ts writes them): a backfill
  reads its page here instead of carrying the ids to the client, and ties (payouts created
  in the same millisecond) cost nothing: the page starts at the cursor's rank.

  createdWalk(index, cursor, fromMs, toMs, limit): up to `limit` ids created from `fromMs`
    to `toMs` after `cursor` ('' for the first page), and the cursor after them ('' when the
    walk is done).
]]
-- Whether id `a` sorts before `b` as Redis orders ties (bytes), whatever the locale.
local function bytesBefore(a, b)
  local length = math.min(#a, #b)
  for i = 1, length do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- The rank of the first entry after `cursor`.
local function walkStart(index, cursor, fromMs)
  if cursor == '' then return redis.call('ZCOUNT', index, '-inf', '(' .. fromMs) end
  local sep = string.find(cursor, ':', 1, true)
  local score, id = string.sub(cursor, 1, sep - 1), string.sub(cursor, sep + 1)
  local current = redis.call('ZSCORE', index, id)
  if current and tonumber(current) == tonumber(score) then
    return redis.call('ZRANK', index, id) + 1
  end
  -- Gone since (trimmed): after every entry scored below it and its ties sorted before it.
  local rank = redis.call('ZCOUNT', index, '-inf', '(' .. score)
  for _, tie in ipairs(redis.call('ZRANGEBYSCORE', index, score, score)) do
    if bytesBefore(tie, id) then rank = rank + 1 end
  end
  return rank
end

local function createdWalk(index, cursor, fromMs, toMs, limit)
  local start = walkStart(index, cursor, fromMs)
  local flat = redis.call('ZRANGE', index, start, start + limit - 1, 'WITHSCORES')
  local ids, last = {}, ''
  local to = tonumber(toMs)
  for i = 1, #flat, 2 do
    if tonumber(flat[i + 1]) > to then return ids, '' end
    ids[#ids + 1] = flat[i]
    last = flat[i + 1] .. ':' .. flat[i]
  end
  if #ids < limit then return ids, '' end
  return ids, last
end
