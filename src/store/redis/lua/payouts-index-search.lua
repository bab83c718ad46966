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

--!include search-index.lua

local o = cjson.decode(ARGV[1])
local indexed = 0
for _, item in ipairs(o.payouts) do
  if indexForSearch(o, item.id, item.words, KEYS[1], KEYS[2]) then indexed = indexed + 1 end
end
return indexed
