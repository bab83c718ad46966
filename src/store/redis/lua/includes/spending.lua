--[[
  The days' spending (redis/spending.ts), on the hash `day` and the initiator's `field`, in
  whole XAF. Shared with the payout move, so a reservation and the move are one step.

  overLimit(day, field, amount, payerCap, merchantCap): which cap `amount` would pass
    ('payer' or 'merchant', with what that one had used), or nil. A cap '' is off.
  spend(day, field, amount, keptMs): counts it and keeps the day `keptMs` more.
  reservedDayOf(record): the day a payout record reserved (`limitDay`), or false.
  giveBack(day, field, amount): takes it off a day that is still kept (a day forgotten has
    nothing to give back to).
]]
local function overLimit(day, field, amount, payerCap, merchantCap)
  local payerUsed = tonumber(redis.call('HGET', day, field) or '0')
  if payerCap ~= '' and payerUsed + amount > tonumber(payerCap) then
    return 'payer', string.format('%d', payerUsed)
  end
  local merchantUsed = tonumber(redis.call('HGET', day, 'merchant') or '0')
  if merchantCap ~= '' and merchantUsed + amount > tonumber(merchantCap) then
    return 'merchant', string.format('%d', merchantUsed)
  end
  return nil
end

local function spend(day, field, amount, keptMs)
  redis.call('HINCRBY', day, field, amount)
  redis.call('HINCRBY', day, 'merchant', amount)
  redis.call('PEXPIRE', day, keptMs)
end

local function reservedDayOf(record)
  local ok, day = pcall(cjson.decode, redis.call('HGET', record, 'limitDay') or 'null')
  if ok and type(day) == 'string' then return day end
  return false
end

local function giveBack(day, field, amount)
  if redis.call('EXISTS', day) == 0 then return end
  redis.call('HINCRBY', day, field, -amount)
  redis.call('HINCRBY', day, 'merchant', -amount)
end
