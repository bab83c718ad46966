--[[
  What needs a person (the Overview): of the payouts in a state set, how many are still in
  that state (and pass the filters), and the ids of the oldest few by creation, oldest first
  (store/oldest-in-state.ts's rule, held to it by the store contract). Only four fields of
  each record are read, and only the ids come back: thousands waiting cost one round trip.

  Input:
    KEYS[1]   the state set

    ARGV[1]   options (JSON, every value a string): payoutPrefix, state (JSON, as stored),
              limit, userId ('' anyone's), leftBefore (ms: only those whose request left, or
              never sent that were created, before it; '' no such filter)

  Output:
    {count, id, id, …} (at most `limit` ids)
]]
local o = cjson.decode(ARGV[1])
local limit, leftBefore = tonumber(o.limit), tonumber(o.leftBefore)
local kept = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local f = redis.call('HMGET', o.payoutPrefix .. id, 'state', 'createdAtMs', 'sentAtMs', 'initiatorId')
  local created = tonumber(f[2] or '')
  if f[1] == o.state and created and f[4] and (o.userId == '' or f[4] == o.userId) then
    local left = tonumber(f[3] or '') or created
    if not leftBefore or left < leftBefore then kept[#kept + 1] = {created, id} end
  end
end
table.sort(kept, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end)
local reply = {#kept}
for i = 1, math.min(limit, #kept) do reply[#reply + 1] = kept[i][2] end
return reply
