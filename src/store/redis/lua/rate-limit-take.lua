--[[
  A sliding-window log (one sorted-set member per grant, scored by its time on Redis's own
  clock): grants when fewer than `limit` grants happened in the last `windowMs`.

  Input:
    KEYS[1] the sorted set

    ARGV[1] limit
    ARGV[2] windowMs
    ARGV[3] member (unique per call)
    ARGV[4] background work's limit ('' for a person's request; see rate-limit.lua)

  Output:
    {1, 0, nowMs} when granted, {0, retryInMs, nowMs} when not
]]
--!include rate-limit.lua

local granted, wait, now = takeSlot(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return {granted, wait, now}
