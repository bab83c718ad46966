--[[
  One page of the search indexes' backfill (payouts stored before the indexes existed),
  walked inside Redis from a cursor on the creation index, so the client holds nothing per
  payout: each payout of the page is indexed as payouts-index-search.lua does it, its words
  folded here when its name, note and alias are plain ASCII (where folding is lower case
  and the words are runs of letters and digits, exactly as model/search.ts folds them).
  The others (any other character, or a field that is not clean JSON) are answered for the
  client to fold and index with payouts-index-search.lua. Running it again changes nothing.

  Input:
    KEYS[1]   the creation index (everyone's history, scored by createdAtMs)
    KEYS[2]   the words (score 0, read by prefix)
    KEYS[3]   the words by their newest payout's createdAtMs

    ARGV[1]   options (JSON): cursor ('' first, then the one answered), toMs, limit (payouts
              per call), maxWords, maxWordLength (model/search.ts), payoutPrefix,
              wordPrefix, cutoffMs (payouts created before it are left out), retentionMs,
              groups (JSON state → its status group), statusKeys (status group → everyone's
              index of it), userStatusPrefixes (status group → what an initiator's id follows
              in their index of it)

  Output:
    {next cursor ('' when done), payouts indexed here, then id, name, note, alias (as
    stored, '' when absent) of each payout left to the client}
]]
--!include created-walk.lua
--!include search-index.lua

local o = cjson.decode(ARGV[1])
local maxWords, maxLength = tonumber(o.maxWords), tonumber(o.maxWordLength)

-- A stored text field decoded, or nil when it is not plain ASCII JSON (the client's part).
local function asciiText(raw)
  if not raw or raw == '' then return '' end
  if string.find(raw, '[%z\1-\31\127-\255]') then return nil end
  local ok, value = pcall(cjson.decode, raw)
  if not ok then return nil end
  if type(value) ~= 'string' then return '' end
  if string.find(value, '[%z\1-\31\127-\255]') then return nil end
  return value
end

-- The payout's words (searchWordsOf) when its texts are plain ASCII, else nil.
local function asciiWords(name, note, alias)
  if not (name and note and alias) then return nil end
  local words, seen = {}, {}
  local text = string.lower(name .. ' ' .. note .. ' ' .. alias)
  for word in string.gmatch(text, '[0-9a-z]+') do
    word = string.sub(word, 1, maxLength)
    if not seen[word] then
      seen[word] = true
      words[#words + 1] = word
      if #words == maxWords then break end
    end
  end
  return words
end

local ids, next = createdWalk(KEYS[1], o.cursor, o.cutoffMs, o.toMs, tonumber(o.limit))
local reply = {next, 0}
for _, id in ipairs(ids) do
  local raw = redis.call('HMGET', o.payoutPrefix .. id, 'recipientName', 'note', 'recipientAlias')
  local name, note, alias = raw[1] or '', raw[2] or '', raw[3] or ''
  local words = asciiWords(asciiText(name), asciiText(note), asciiText(alias))
  if words then
    if indexForSearch(o, id, words, KEYS[2], KEYS[3]) then reply[2] = reply[2] + 1 end
  else
    for _, value in ipairs({id, name, note, alias}) do reply[#reply + 1] = value end
  end
end
return reply
