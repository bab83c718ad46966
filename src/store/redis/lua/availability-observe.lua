--[[
  Compares an operation's availability with its last seen state and changes it, with the
  alert (outbox) and the audit entry (the signed event's outbox) it calls for. The up-or-down
  of each operation is kept in a field of its own (`field:up`), so the script compares plain
  strings and writes states it was given, never JSON of its own.

  Input:
    KEYS[1] the availability hash
    KEYS[2] the outbox
    KEYS[3] the audit stream

    ARGV[1] options (JSON, every value a string): field, up ('1'/'0'), nowMs
    ARGV[2] the state if changed (JSON)
    ARGV[3] its notice
    ARGV[4] the state if first seen (JSON)
    ARGV[5] its notice
    ARGV[6] the audit entry (field `e`) if changed
    ARGV[7] the audit entry if first seen

  Output:
    {'same', state} | {'changed', state, previous} | {'first', state}
]]
--!include wake.lua

local o = cjson.decode(ARGV[1])
local field, up, now = o.field, o.up, o.nowMs
local seen = redis.call('HGET', KEYS[1], field .. ':up')
local previous = redis.call('HGET', KEYS[1], field)
if seen == up and previous then return {'same', previous} end
local changed = seen ~= false and previous ~= false
local state, notice = ARGV[4], ARGV[5]
if changed then state, notice = ARGV[2], ARGV[3] end
redis.call('HSET', KEYS[1], field, state, field .. ':up', up)
if changed or up == '0' then
  redis.call('ZADD', KEYS[2], now, notice)
  wake(KEYS[2], 'outbox')
  local entry = ARGV[7]
  if changed then entry = ARGV[6] end
  redis.call('XADD', KEYS[3], '*', 'e', entry)
end
if changed then return {'changed', state, previous} end
return {'first', state}
