--[[
  Writes the search indexes of payouts stored before they existed (a backfill, run at start
  page by page): each payout still there goes into the status group of its state now (out
  of every other; read here, so a move made meanwhile is never undone), and its words into
  the index of words, as payout-create.lua writes them. Running it again changes nothing.

  Input:
    KEYS[1]   the words (score 0, read by prefix)
    KEYS[2]   the words by their newest payout's createdAtMs

    ARGV[1]   options (JSON): payouts (an array of {id, words}), payoutPrefix, wordPrefix,
              cutoffMs (entries created before it are not written), retentionMs, groups
              (JSON state → its status group), statusKeys (status group → everyone's index
              of it), userStatusPrefixes (status group → what an initiator's id follows in
              their index of it)

  Output:
    the number of payouts indexed
]]

local o = cjson.decode(ARGV[1])
local cutoff = tonumber(o.cutoffMs)
local indexed = 0
for _, item in ipairs(o.payouts) do
  local id = item.id
  local record = o.payoutPrefix .. id
  local state = redis.call('HGET', record, 'state')
  local created = redis.call('HGET', record, 'createdAtMs')
  local initiator = redis.call('HGET', record, 'initiatorId')
  local group = state and o.groups[state]
  local createdMs = tonumber(created or '')
  if group and createdMs and initiator and createdMs >= cutoff then
    for other, key in pairs(o.statusKeys) do
      if other ~= group then
        redis.call('ZREM', key, id)
        redis.call('ZREM', o.userStatusPrefixes[other] .. initiator, id)
      end
    end
    redis.call('ZADD', o.statusKeys[group], created, id)
    local own = o.userStatusPrefixes[group] .. initiator
    redis.call('ZADD', own, created, id)
    if redis.call('PTTL', own) < 0 then redis.call('PEXPIRE', own, o.retentionMs) end
    for _, word in ipairs(item.words) do
      local index = o.wordPrefix .. word
      redis.call('ZADD', index, created, id)
      if redis.call('PTTL', index) < 0 then redis.call('PEXPIRE', index, o.retentionMs) end
      redis.call('ZADD', KEYS[1], 0, word)
      redis.call('ZADD', KEYS[2], 'GT', created, word)
    end
    indexed = indexed + 1
  end
end
return indexed
