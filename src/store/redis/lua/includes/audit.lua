--[[
  Shared by the scripts that create and move payouts, so that an audit entry and the change
  it records are one atomic step (its fields as audit-codec.ts reads them).

  audit(stream, minId, draft, from, to, record): appends an entry for the payout in `record`
    to `stream` (entries older than `minId` go): the caller's draft (JSON), the states before
    and after when given, the record's amount and masked number (as logger.maskPhone masks:
    the country code, the operator's prefix and the last 3 digits kept), and on leaving a
    prompt, the payout it repeats (`duplicateOf`).
  stampSent(stream, minId, draft, record): the request of the payout leaves now: its send
    time on Redis's own clock (the same for every replica), and the submission audited
    (`draft`). Answers the time (ms).
]]
local function audit(stream, minId, draft, from, to, record)
  local fields = {'e', draft}
  if from then fields[#fields + 1] = 'from'; fields[#fields + 1] = from end
  if to then fields[#fields + 1] = 'to'; fields[#fields + 1] = to end
  local amount = redis.call('HGET', record, 'amount')
  if amount then fields[#fields + 1] = 'amount'; fields[#fields + 1] = amount end
  if from == '"awaiting_confirmation"' then
    -- Leaving a prompt that warned of a duplicate: the payout it repeats, on record.
    local repeats = redis.call('HGET', record, 'duplicateOf')
    if repeats then fields[#fields + 1] = 'duplicateOf'; fields[#fields + 1] = repeats end
  end
  local stored = redis.call('HGET', record, 'phone')
  if stored then
    local ok, phone = pcall(cjson.decode, stored)
    if ok and type(phone) == 'string' and #phone >= 8 then
      fields[#fields + 1] = 'phone'
      local head = #phone - 7
      if #phone == 8 then head = 1 end
      fields[#fields + 1] = string.sub(phone, 1, head) .. string.rep('•', #phone - head - 3) .. string.sub(phone, -3)
    end
  end
  redis.call('XADD', stream, 'MINID', '~', minId, '*', unpack(fields))
end

local function stampSent(stream, minId, draft, record)
  local time = redis.call('TIME')
  local ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('HSET', record, 'sentAtMs', string.format('%d', ms))
  audit(stream, minId, draft, false, false, record)
  return ms
end
