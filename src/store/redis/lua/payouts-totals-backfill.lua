--[[
  One page of the day totals' backfill (payouts stored before the totals existed), walked
  inside Redis from a cursor on the creation index, so the client holds nothing for a
  payout that needs no counting (not in a counted state, or counted already: it has a
  `totalsDay`). The few that need it are answered with what their day is computed from (in
  the bot's time zone, by the client), then counted by payouts-count-settled.lua, which
  checks `totalsDay` again: a payout settled meanwhile is counted once. Writes nothing.

  Input:
    KEYS[1]   the creation index (everyone's history, scored by createdAtMs)

    ARGV[1]   options (JSON): cursor ('' first, then the one answered), fromMs, toMs, limit
              (payouts per call), payoutPrefix, counted (JSON states that are counted, as
              stored)

  Output:
    {next cursor ('' when done), then id, settledAtMs ('' when absent), createdAtMs of each
    payout of the page to count}
]]
--!include created-walk.lua

local o = cjson.decode(ARGV[1])
local counted = {}
for _, state in ipairs(o.counted) do counted[state] = true end
local ids, next = createdWalk(KEYS[1], o.cursor, o.fromMs, o.toMs, tonumber(o.limit))
local reply = {next}
for _, id in ipairs(ids) do
  local fields = redis.call('HMGET', o.payoutPrefix .. id, 'state', 'totalsDay', 'settledAtMs', 'createdAtMs')
  if fields[1] and counted[fields[1]] and not fields[2] and fields[4] then
    for _, value in ipairs({id, fields[3] or '', fields[4]}) do reply[#reply + 1] = value end
  end
end
return reply
