--[[
  The last check before a request leaves: the payout is still `submitting` under this claim.
  Stamps `sentAtMs` with Redis's own clock, so every replica measures a send time the same
  way, and audits the submission.

  Input:
    KEYS[1] the payout record
    KEYS[2] the audit stream

    ARGV[1] claimId (JSON)
    ARGV[2] audit draft (JSON)
    ARGV[3] audit min id

  Output:
    {'sending', ms} | {'moved', HGETALL} | {'not_found'}
]]
--!include audit.lua

if redis.call('EXISTS', KEYS[1]) == 0 then return {'not_found'} end
if redis.call('HGET', KEYS[1], 'state') ~= '"submitting"' or redis.call('HGET', KEYS[1], 'claimId') ~= ARGV[1] then
  return {'moved', redis.call('HGETALL', KEYS[1])}
end
local ms = stampSent(KEYS[2], ARGV[3], ARGV[2], KEYS[1])
return {'sending', string.format('%d', ms)}
