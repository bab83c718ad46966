--[[
  A payment callback's admission, in one step: the payout its payment id is indexed to and,
  when that payout is pending, one re-read of it counted against the spacing (taken for
  good: the spacing counts from this callback, whatever follows), then its re-read lease
  taken for this callback unless another owner holds it. The counter and the lease are the
  ones throttle-take.lua and lease-acquire.lua keep under the same names.

  Input:
    KEYS[1]   the payment index of the payment id

    ARGV[1]   the payment id, JSON-encoded (as the payout record stores it)
    ARGV[2]   the payout key prefix
    ARGV[3]   the spacing counter's key prefix (the payout id is appended)
    ARGV[4]   the lease's key prefix (the payout id is appended)
    ARGV[5]   spacingMs
    ARGV[6]   the lease owner (unique per callback)
    ARGV[7]   leaseMs

  Output:
    {} when no payout has this payment id; else
    {'not_pending'|'spaced'|'leased'|'admitted', id, HGETALL}

  Keys after the index are built from their prefixes: only the index knows the payout id.
  Fine on a single Redis (not Cluster), as payout-transition.lua.
]]

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
redis.call('SET', lease, ARGV[6], 'PX', ARGV[7])
return {'admitted', id, fields}
