--[[
  The days' settled totals (model/totals.ts): a payout in a final state the API gave is
  counted once, on the hash of the day it settled and its initiator's hash of that day
  (`{prefix}{day}` and `{prefix}{day}:user:{initiatorId}`), fields
  `{operator}:{kind}:paid_xaf|paid_count|fees_xaf` for a success, `…:failed_xaf|failed_count`
  for the others (all written here, in the script that moves the payout: never one without
  the other). The record keeps the day as `totalsDay`: a payout that has one is never counted
  again (the backfill of stored payouts, a resend).

  countSettled(record, prefix, day, keptMs): counts the record's payout on `day` (the caller
    knows its state is counted); answers true when it counted, false when it was already.
]]
local function storedValue(record, field)
  local raw = redis.call('HGET', record, field)
  if not raw then return nil end
  local ok, value = pcall(cjson.decode, raw)
  if ok and value ~= cjson.null then return value end
  return nil
end

local function countSettled(record, prefix, day, keptMs)
  if redis.call('HEXISTS', record, 'totalsDay') == 1 then return false end
  local state, kind, operator = storedValue(record, 'state'), storedValue(record, 'kind'), storedValue(record, 'operator')
  local amount, fee = tonumber(storedValue(record, 'amount')), tonumber(storedValue(record, 'fee') or 0)
  local initiator = redis.call('HGET', record, 'initiatorId')
  -- (A record without them, which PayoutSchema never lets be written, is not counted.)
  if type(kind) ~= 'string' or type(operator) ~= 'string' or not amount or not initiator then
    return false
  end
  local base = operator .. ':' .. kind .. ':'
  for _, key in ipairs({prefix .. day, prefix .. day .. ':user:' .. initiator}) do
    if state == 'success' then
      redis.call('HINCRBY', key, base .. 'paid_xaf', string.format('%d', amount))
      redis.call('HINCRBY', key, base .. 'paid_count', 1)
      redis.call('HINCRBY', key, base .. 'fees_xaf', string.format('%d', fee or 0))
    else
      redis.call('HINCRBY', key, base .. 'failed_xaf', string.format('%d', amount))
      redis.call('HINCRBY', key, base .. 'failed_count', 1)
    end
    redis.call('PEXPIRE', key, keptMs)
  end
  redis.call('HSET', record, 'totalsDay', cjson.encode(day))
  return true
end
