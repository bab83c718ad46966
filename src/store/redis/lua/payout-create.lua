--[[
  Creates a payout: the record, its indexes (its initiator's, everyone's and its number's
  history, its state set, its status group's (everyone's and its initiator's), the index of
  each word of its name, note and alias, its payment), its audit entry, and its initiator's open prompt in
  its chat (the one it replaces is answered, with that one's state, so that it can be
  retired). A batch's row (a record with `batchId`) or a schedule's run (`scheduleId`) is no
  one's open prompt.

  Input:
    KEYS[1]   the payout record
    KEYS[2]   the initiator's index
    KEYS[3]   everyone's index
    KEYS[4]   the state set of the payout's state
    KEYS[5]   the payment index
    KEYS[6]   the audit stream
    KEYS[7]   the number's index
    KEYS[8]   the initiator's open prompt in the chat
    KEYS[9]   the initiator's index of the payout's status group
    KEYS[10]  everyone's index of the payout's status group
    KEYS[11]  the words (score 0, read by prefix)
    KEYS[12]  the words by their newest payout's createdAtMs
    KEYS[13..] the index of each of options.words, in that order

    ARGV[1]   options (JSON, every value a string): id, createdAtMs, cutoffMs (index
              entries older go), retentionMs, expires ('1'/'0'), tracked ('1'/'0'),
              hasPaymentId ('1'/'0'), lifetimeMs (the record's; an unconfirmed prompt's is
              short, and so is its open-prompt mark), auditMinId, payoutPrefix (payout key
              prefix), words (the payout's folded words, an array), totalsDay (a payout
              created in a counted final state is counted on that day, totals.lua; ''
              none), totalsPrefix (day totals key prefix), totalsKeptMs
    ARGV[2]   audit draft (JSON)
    ARGV[3..] the fields as field/value pairs

  Output:
    {0} when the id exists (nothing written); {1} when stored (and audited); {1, id, state}
    when it also replaced that open prompt (its state JSON, '' when it is gone)
]]
--!include audit.lua
--!include totals.lua

if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
local o = cjson.decode(ARGV[1])
local id, createdAt, cutoff, retention = o.id, o.createdAtMs, o.cutoffMs, o.retentionMs
local expires = o.expires == '1'
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
audit(KEYS[6], o.auditMinId, ARGV[2], false, redis.call('HGET', KEYS[1], 'state'), KEYS[1])
if expires then redis.call('PEXPIRE', KEYS[1], o.lifetimeMs) end
if (o.totalsDay or '') ~= '' then countSettled(KEYS[1], o.totalsPrefix, o.totalsDay, o.totalsKeptMs) end
for _, index in ipairs({KEYS[2], KEYS[3], KEYS[7], KEYS[9], KEYS[10]}) do
  redis.call('ZADD', index, createdAt, id)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. cutoff)
end
-- The newest entry of a user's (or a number's, or a word's) history is this one: the
-- index outlives it by nothing.
redis.call('PEXPIRE', KEYS[2], retention)
redis.call('PEXPIRE', KEYS[7], retention)
redis.call('PEXPIRE', KEYS[9], retention)
for i, word in ipairs(o.words) do
  local index = KEYS[12 + i]
  redis.call('ZADD', index, createdAt, id)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. cutoff)
  redis.call('PEXPIRE', index, retention)
  redis.call('ZADD', KEYS[11], 0, word)
  redis.call('ZADD', KEYS[12], 'GT', createdAt, word)
end
-- Words whose newest payout is past the retention leave the words, a few per creation.
local gone = redis.call('ZRANGEBYSCORE', KEYS[12], '-inf', '(' .. cutoff, 'LIMIT', 0, 20)
if #gone > 0 then
  redis.call('ZREM', KEYS[11], unpack(gone))
  redis.call('ZREM', KEYS[12], unpack(gone))
end
if o.tracked == '1' then redis.call('SADD', KEYS[4], id) end
if o.hasPaymentId == '1' then
  if expires then redis.call('SET', KEYS[5], id, 'PX', retention) else redis.call('SET', KEYS[5], id) end
end
if redis.call('HEXISTS', KEYS[1], 'batchId') == 1 then return {1} end
if redis.call('HEXISTS', KEYS[1], 'scheduleId') == 1 then return {1} end
local previous = redis.call('SET', KEYS[8], id, 'PX', o.lifetimeMs, 'GET')
if previous and previous ~= id then
  return {1, previous, redis.call('HGET', o.payoutPrefix .. previous, 'state') or ''}
end
return {1}
