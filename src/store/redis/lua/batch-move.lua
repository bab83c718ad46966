--[[
  Moves (or only updates) a batch: checks its state and version, merges the patch, keeps the
  active set and the batch's lifetime, queues its notices in the outbox and appends its
  audit entry, all in one atomic step.

  Input:
    KEYS[1] the batch (one JSON string)
    KEYS[2] its rows
    KEYS[3] the active set
    KEYS[4] the outbox
    KEYS[5] the audit stream

    ARGV[1] options (JSON): allowed (the states it may leave; absent = any), to (new state,
            '' = unchanged), nowMs, auditMinId, retentionMs, finalStates, workedStates,
            version (expected version, '' = any), signers (absent = none: else
            {ids, roles (',a,b,'), asked, staffKey, grantedKey}, each id on staff now in
            one of roles, granted no later than asked, or nothing moves); scalars as
            strings. The staff keys carry the batch's own prefix (one merchant's slot).
    ARGV[2] patch (JSON)
    ARGV[3] notices (JSON array of outbox keys)
    ARGV[4] audit draft (JSON, '' none)

  Output:
    {1, batch JSON} when moved, {0, batch JSON or ''} when not
]]
--!include signatures.lua
--!include wake.lua

local raw = redis.call('GET', KEYS[1])
if not raw then return {0, ''} end
local o = cjson.decode(ARGV[1])
local batch = cjson.decode(raw)
local from = batch.state
if o.allowed then
  local allowed = false
  for _, state in ipairs(o.allowed) do
    if state == from then allowed = true end
  end
  if not allowed then return {0, raw} end
end
if o.version ~= '' and (tonumber(batch.version) or 0) ~= tonumber(o.version) then
  return {0, raw}
end
-- The signatures being written count only while every signer still stands, read now.
if o.signers and not signersStand(o.signers) then return {0, raw} end
for field, value in pairs(cjson.decode(ARGV[2])) do batch[field] = value end
if o.to ~= '' then
  batch.state = o.to
  batch.version = (tonumber(batch.version) or 0) + 1
end
batch.updatedAtMs = tonumber(o.nowMs)
local encoded = cjson.encode(batch)
redis.call('SET', KEYS[1], encoded, 'KEEPTTL')
local function member(list, value)
  for _, item in ipairs(list) do if item == value then return true end end
  return false
end
if member(o.finalStates, batch.state) then
  redis.call('SREM', KEYS[3], batch.id)
  redis.call('PEXPIRE', KEYS[1], o.retentionMs)
  redis.call('PEXPIRE', KEYS[2], o.retentionMs)
elseif member(o.workedStates, batch.state) then
  -- Newly work for the batch worker: every replica's wakes (not each update of a batch at work).
  if redis.call('SADD', KEYS[3], batch.id) == 1 then wake(KEYS[3], 'batches:active') end
else
  redis.call('SREM', KEYS[3], batch.id)
end
local notices = cjson.decode(ARGV[3])
for _, notice in ipairs(notices) do redis.call('ZADD', KEYS[4], o.nowMs, notice) end
if #notices > 0 then wake(KEYS[4], 'outbox') end
if ARGV[4] ~= '' then
  local draft = cjson.decode(ARGV[4])
  draft.details = draft.details or {}
  draft.details.from = from
  draft.details.to = batch.state
  local fields = {'e', cjson.encode(draft)}
  if batch.totalXaf then
    fields[#fields + 1] = 'amount'
    fields[#fields + 1] = string.format('%d', batch.totalXaf)
  end
  redis.call('XADD', KEYS[5], 'MINID', '~', o.auditMinId, '*', unpack(fields))
end
return {1, encoded}
