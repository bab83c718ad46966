--[[
  Shared by every script that gives a loop work: tells the loops of every replica, in the
  same step as the write (a crash cannot keep the one without the other).

  wake(key, queue): PUBLISHes `<queue> <merchant key prefix>` on the bot's wake channel
    (`<prefix>wake`, a global name: store/keys.ts wakeChannel). `key` is the queue's key and
    `queue` its name after the merchant's key prefix (`outbox`, `tracking`, `batches:active`,
    `schedules:due`, `schedules:sending`, `state:awaiting_approval`,
    `state:submitting`); the prefix is `key` without `queue`, and the channel that prefix
    without its `{m:<id>}:` tag.
    PUBLISH names no key: the script stays on its one slot, and Redis Cluster sends the
    message to every node.
]]
local function wake(key, queue)
  local base = string.sub(key, 1, #key - #queue)
  local root = string.match(base, '^(.-){m:[^}]*}:$') or base
  redis.call('PUBLISH', root .. 'wake', queue .. ' ' .. base)
end
