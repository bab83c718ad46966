--[[
  The search indexes of one stored payout written by a backfill (payouts-index-search.lua,
  payouts-search-backfill.lua), as payout-create.lua writes them: into the status group of
  its state now (out of every other; read here, so a move made meanwhile is never undone),
  and its words into the index of words. Writing it again changes nothing.

  indexForSearch(o, id, words, vocabulary, vocabularySeen): o holds payoutPrefix,
    wordPrefix, cutoffMs, retentionMs, groups, statusKeys, userStatusPrefixes (see the
    scripts' headers); answers true when the payout is there (created since the cutoff) and
    was indexed.
]]
local function indexForSearch(o, id, words, vocabulary, vocabularySeen)
  local record = o.payoutPrefix .. id
  local state = redis.call('HGET', record, 'state')
  local created = redis.call('HGET', record, 'createdAtMs')
  local initiator = redis.call('HGET', record, 'initiatorId')
  local group = state and o.groups[state]
  local createdMs = tonumber(created or '')
  if not (group and createdMs and initiator and createdMs >= tonumber(o.cutoffMs)) then
    return false
  end
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
  for _, word in ipairs(words) do
    local index = o.wordPrefix .. word
    redis.call('ZADD', index, created, id)
    if redis.call('PTTL', index) < 0 then redis.call('PEXPIRE', index, o.retentionMs) end
    redis.call('ZADD', vocabulary, 0, word)
    redis.call('ZADD', vocabularySeen, 'GT', created, word)
  end
  return true
end
