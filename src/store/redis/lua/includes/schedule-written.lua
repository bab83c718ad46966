--[[
  Shared by the schedule scripts: what a change leaves besides itself, in the same step.

  written(outbox, audit, notices, draft, minId, nowMs, from, to): puts each notice key of
    `notices` (a JSON array) in the outbox at `nowMs`, and appends the audit `draft` (JSON,
    '' for none) to the `audit` stream (entries older than `minId` go) with the states before
    and after in its details.
]]
--!include wake.lua
local function written(outbox, audit, notices, draft, minId, nowMs, from, to)
  local queued = cjson.decode(notices)
  for _, notice in ipairs(queued) do redis.call('ZADD', outbox, nowMs, notice) end
  if #queued > 0 then wake(outbox, 'outbox') end
  if draft ~= '' then
    local entry = cjson.decode(draft)
    if type(entry.details) ~= 'table' then entry.details = {} end
    entry.details.from = from
    entry.details.to = to
    redis.call('XADD', audit, 'MINID', '~', minId, '*', 'e', cjson.encode(entry))
  end
end
