--[[
  Counts payouts stored before the day totals existed (a backfill, run at start page by
  page): each payout still there, in a final state the API gave and not counted yet (no
  `totalsDay`), is counted on the day given for it (totals.lua). A payout settled meanwhile
  was counted by its own move and is skipped: running it again changes nothing.

  Input:
    KEYS[1]   the creation index (everyone's history): not read; it names the merchant's
              slot, so a cluster runs the script where the records and day totals are
              (named here by their prefix, one per payout)

    ARGV[1]   options (JSON): payouts (an array of {id, day}), payoutPrefix, counted (JSON
              states that are counted, as stored), totalsPrefix, totalsKeptMs

  Output:
    the number of payouts counted
]]
--!include totals.lua

local o = cjson.decode(ARGV[1])
local counted = {}
for _, state in ipairs(o.counted) do counted[state] = true end
local done = 0
for _, item in ipairs(o.payouts) do
  local record = o.payoutPrefix .. item.id
  local state = redis.call('HGET', record, 'state')
  if state and counted[state] and countSettled(record, o.totalsPrefix, item.day, o.totalsKeptMs) then
    done = done + 1
  end
end
return done
