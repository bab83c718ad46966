--[[
  The payout a payment id is indexed to, read with the index in one round trip (a payment
  callback's first look-up).

  Input:
    KEYS[1]   the payment index of the payment id
    ARGV[1]   the payout key prefix (the payout id is appended: the index holds it)

  Output:
    {} when the index or the record is missing, else {id, HGETALL}

  The record's key is built here from its prefix rather than passed in KEYS: only the
  index knows the id. Fine on a single Redis (not Cluster), as payout-transition.lua.
]]

local id = redis.call('GET', KEYS[1])
if not id then return {} end
local fields = redis.call('HGETALL', ARGV[1] .. id)
if #fields == 0 then return {} end
return {id, fields}
