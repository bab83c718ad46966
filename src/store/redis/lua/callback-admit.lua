--[[
  A payment callback's admission, in one step: the payout its payment id is indexed to and,
  when that payout is pending, one re-read of it counted against the spacing (taken for
  good: the spacing counts from this callback, whatever follows), then, unless another
  owner holds its re-read lease: a slot of the re-reads' cap when one is asked (none free:
  'over_cap', and no lease), the lease taken for this callback, and the re-read request's
  own rate-limit slot when one is asked. The counter and the lease are the ones
  throttle-take.lua and lease-acquire.lua keep under the same names; the slots are taken
  as rate-limit-take.lua takes them.

  Input:
    KEYS[1]   the payment index of the payment id
    KEYS[2]   the re-reads' cap log (not read when ARGV[8] is ''; then KEYS[1] again, so that
              every key given is in the merchant's cluster slot)
    KEYS[3]   the request's rate-limit log (not read when ARGV[11] is ''; KEYS[1] again)

    ARGV[1]   the payment id, JSON-encoded (as the payout record stores it)
    ARGV[2]   the payout key prefix
    ARGV[3]   the spacing counter's key prefix (the payout id is appended)
    ARGV[4]   the lease's key prefix (the payout id is appended)
    ARGV[5]   spacingMs
    ARGV[6]   the lease owner (unique per callback)
    ARGV[7]   leaseMs
    ARGV[8]   the cap's limit ('' no cap)
    ARGV[9]   the cap's windowMs
    ARGV[10]  the slot members (unique per callback; the same for both logs)
    ARGV[11]  the request's limit ('' no slot asked)
    ARGV[12]  the request's windowMs
    ARGV[13]  the request's background limit (rate-limit.lua; '' none)

  Output:
    {} when no payout has this payment id; else
    {'not_pending'|'spaced'|'leased'|'over_cap', id, HGETALL} or
    {'admitted', id, HGETALL, requestSlot} (requestSlot: 1 taken, 0 the limit was full,
    -1 none asked)

  Keys after the index are built from their prefixes: only the index knows the payout id.
  Fine on a single Redis (not Cluster), as payout-transition.lua.
]]
--!include rate-limit.lua

local id = redis.call('GET', KEYS[1])
if not id then return {} end
local record = ARGV[2] .. id
local fields = redis.call('HGETALL', record)
if #fields == 0 then return {} end
if redis.call('HGET', record, 'paymentId') ~= ARGV[1] then return {} end
if redis.call('HGET', record, 'state') ~= '"pending"' then return {'not_pending', id, fields} end
local spacing = ARGV[3] .. id
local count = redis.call('INCR', spacing)
if count == 1 then redis.call('PEXPIRE', spacing, ARGV[5]) end
if count > 1 then return {'spaced', id, fields} end
local lease = ARGV[4] .. id
local holder = redis.call('GET', lease)
if holder and holder ~= ARGV[6] then return {'leased', id, fields} end
if (ARGV[8] or '') ~= '' and takeSlot(KEYS[2], ARGV[8], ARGV[9], ARGV[10]) == 0 then
  return {'over_cap', id, fields}
end
redis.call('SET', lease, ARGV[6], 'PX', ARGV[7])
local requestSlot = -1
if (ARGV[11] or '') ~= '' then requestSlot = takeSlot(KEYS[3], ARGV[11], ARGV[12], ARGV[10], ARGV[13]) end
return {'admitted', id, fields, requestSlot}
