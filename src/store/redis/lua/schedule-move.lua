--[[
  Moves a schedule from one of the allowed states to another, with a patch, in one step with
  its due index (a running schedule with a next run is due then), its keep-or-expire (an
  ended schedule, its runs and its rows are kept for the retention, then go), its notices and its
  audit entry.

  Input:
    KEYS[1] the schedule (JSON)
    KEYS[2] the due index (sorted set: schedule id by next run time)
    KEYS[3] the outbox
    KEYS[4] the audit stream
    KEYS[5] the schedule's runs (hash)
    KEYS[6] a scheduled batch's rows (JSON string; absent for a single payout's schedule)

    ARGV[1] options (JSON): allowed (states it may leave), to (the new state), nowMs,
            minId (the audit stream's), running (states in which it is due), expectRunKey
            ('' = any: else the move happens only if its next run is still this one),
            expectExpiresAtMs ('' = any: else only if its expiresAtMs is still this one,
            the request for approval it was read on), signers (absent = none: else
            {ids, roles, asked, staffKey, grantedKey}: every signer still stands, read
            now: lua/includes/signatures.lua; the staff keys carry the schedule's prefix),
            retentionMs, ended (states it never leaves)
    ARGV[2] the patch (JSON object of fields)
    ARGV[3] fields to remove (JSON array)
    ARGV[4] notices (JSON array of outbox keys)
    ARGV[5] the audit draft (JSON, '' for none)

  Output:
    {1, schedule JSON} when moved, {0, schedule JSON or ''} when not
]]
--!include schedule-written.lua
--!include signatures.lua
local options = cjson.decode(ARGV[1])
local raw = redis.call('GET', KEYS[1])
if not raw then return {0, ''} end
local schedule = cjson.decode(raw)
local from = schedule.state
local allowed = false
for _, state in ipairs(options.allowed) do
  if state == from then allowed = true end
end
if not allowed then return {0, raw} end
if options.expectRunKey ~= '' and schedule.nextRunKey ~= options.expectRunKey then return {0, raw} end
if (options.expectExpiresAtMs or '') ~= ''
  and tonumber(schedule.expiresAtMs) ~= tonumber(options.expectExpiresAtMs) then
  return {0, raw}
end
if options.signers and not signersStand(options.signers) then return {0, raw} end
for field, value in pairs(cjson.decode(ARGV[2])) do schedule[field] = value end
for _, field in ipairs(cjson.decode(ARGV[3])) do schedule[field] = nil end
schedule.state = options.to
schedule.updatedAtMs = tonumber(options.nowMs)
local encoded = cjson.encode(schedule)
redis.call('SET', KEYS[1], encoded)
local ended = false
for _, state in ipairs(options.ended) do
  if state == schedule.state then ended = true end
end
if ended then
  redis.call('PEXPIRE', KEYS[1], options.retentionMs)
  redis.call('PEXPIRE', KEYS[5], options.retentionMs)
  redis.call('PEXPIRE', KEYS[6], options.retentionMs)
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[5])
  redis.call('PERSIST', KEYS[6])
end
local running = false
for _, state in ipairs(options.running) do
  if state == schedule.state then running = true end
end
if running and schedule.nextRunAtMs then
  -- Due sooner than the schedulers know (new, resumed, moved earlier): they wake. A run
  -- moved later needs none (a scheduler woken by the earlier time reads the later one).
  local known = redis.call('ZSCORE', KEYS[2], schedule.id)
  redis.call('ZADD', KEYS[2], schedule.nextRunAtMs, schedule.id)
  if not known or tonumber(schedule.nextRunAtMs) < tonumber(known) then wake(KEYS[2], 'schedules:due') end
else
  redis.call('ZREM', KEYS[2], schedule.id)
end
written(KEYS[3], KEYS[4], ARGV[4], ARGV[5], options.minId, options.nowMs, from, schedule.state)
return {1, encoded}
