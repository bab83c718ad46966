--[[
  Writes one run of a schedule if it is still in one of the allowed states (a compare-and-set
  on the run), keeping the set of held runs and the index of runs sending in step, with its
  notices and audit entry.

  Input:
    KEYS[1] the schedule's runs (hash: run key → run JSON)
    KEYS[2] the held runs (set)
    KEYS[3] the outbox
    KEYS[4] the audit stream
    KEYS[5] the schedule (JSON)
    KEYS[6] the runs sending (sorted set: the held set's member by the run's updatedAtMs)

    ARGV[1] the run key
    ARGV[2] the run (JSON)
    ARGV[3] allowed recorded states (JSON array; 'none': not recorded yet)
    ARGV[4] now (ms)
    ARGV[5] notices (JSON array of outbox keys)
    ARGV[6] the audit draft (JSON, '' for none)
    ARGV[7] the audit stream's min id
    ARGV[8] the held set's (and the sending index's) member for this run
    ARGV[9] allowed states of the schedule (JSON array; '' for any, the schedule not read)

  Output:
    {1, run JSON} when written, {0, run JSON or ''} when not
]]
--!include schedule-written.lua
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local from = 'none'
if raw then from = cjson.decode(raw).state end
local allowed = false
for _, state in ipairs(cjson.decode(ARGV[3])) do
  if state == from then allowed = true end
end
if not allowed then return {0, raw or ''} end
if ARGV[9] and ARGV[9] ~= '' then
  local schedule = redis.call('GET', KEYS[5])
  if not schedule then return {0, raw or ''} end
  local state = cjson.decode(schedule).state
  local active = false
  for _, allowedState in ipairs(cjson.decode(ARGV[9])) do
    if allowedState == state then active = true end
  end
  if not active then return {0, raw or ''} end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local written_run = cjson.decode(ARGV[2])
local to = written_run.state
if to == 'held' then
  redis.call('SADD', KEYS[2], ARGV[8])
else
  redis.call('SREM', KEYS[2], ARGV[8])
end
if to == 'sending' then
  -- A sender that dies now leaves it: every scheduler learns when to settle it.
  if redis.call('ZADD', KEYS[6], written_run.updatedAtMs or ARGV[4], ARGV[8]) == 1 then
    wake(KEYS[6], 'schedules:sending')
  end
else
  redis.call('ZREM', KEYS[6], ARGV[8])
end
written(KEYS[3], KEYS[4], ARGV[5], ARGV[6], ARGV[7], ARGV[4], from, to)
return {1, ARGV[2]}
