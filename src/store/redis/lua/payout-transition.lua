--[[
  Moves a payout from one state to another (the lifecycle's compare-and-set), with every
  check that can refuse it made before the first write (Redis does not roll a script back):
  a resend of the same claim, the source state, a batch's row only while its batch runs, the
  initiator's and the decider's standing read now, expiry, the approval threshold, a payment
  taken by another payout, the day's caps. The move, its state sets, payment index, spending,
  notices, first poll and audit entry are then one atomic step. Values in the payout hash
  are JSON-encoded (a state is stored as `"pending"`).

  Input:
    KEYS[1]   the payout record
    KEYS[2]   the outbox
    KEYS[3]   the audit stream
    KEYS[4]   the tracking schedule
    KEYS[5..] the state sets of the tracked states (in the order of options.trackedStates)
    KEYS[5+n] after the n state sets, when options.slotLimit is set: the rate-limit log a
              slot is taken from (rate-limit.lua), only when the move is made
    then, when options.paidPhone is set: the address book's saved numbers (a hash) and
              their last-paid times (a hash), the time set when the move lands in
              `success` and the number is saved

    ARGV[1]   options (JSON; every scalar a string as the record stores or compares it):
                id, target (JSON state), claim (JSON claim id, '' none), nowMs,
                expires ('1'/'0'), retentionMs, paymentPrefix (payment index key prefix),
                auditMinId, expectedInitiator (JSON user id, ''), notExpiredAt (ms, ''),
                trackAt (first poll, ms, ''), untrack ('1': off the tracking schedule,
                '0'), spendPrefix (spending key prefix), reserveDay
                (''), payerCap (''), merchantCap (''), givesBack ('1'/'0'), spendKeptMs,
                amountBelow (a second person is needed at this amount, ''), reserveKind
                (JSON kind that reserves, ''), batchPrefix (batch key prefix), staffKey,
                grantedKey (staff grant times), initiatorRoles (',a,b,' or ''), deciderId
                (''), deciderRoles (',a,b,' or ''), sources (JSON states the event leaves
                from), noticeCount, settledPrefix (the payer's settled notice, which a
                batch's row does not queue), trackedStates (JSON states, in KEYS order),
                groups (JSON state → its status group, for the sources and the target:
                the only states a move reads a group of), statusKeys (status group →
                everyone's index of it), userStatusPrefixes (status group → what an
                initiator's id follows in their index of it), both for those groups,
                slotLimit, slotWindowMs, slotMember ('' all three: no slot taken),
                slotBackgroundLimit (background work's limit, rate-limit.lua; '' none),
                totalsDay (the day a move into a counted final state is counted on,
                totals.lua; '' none), totalsPrefix (day totals key prefix), totalsKeptMs,
                paidPhone, paidAtMs (the number's last-paid time; '' both: not noted),
                sigNeeded (an approval by signatures: how many the rule needs; '' none),
                signDraft (JSON audit draft of a signature that is not the last, ''),
                signNotices (outbox keys queued with such a signature),
                pressKey, pressLimit, pressWindowMs (a button press counted first, as
                throttle-take.lua counts it, in the merchant's slot; '' all three: none)
    ARGV[2]   the patch's paymentId (raw, '' none)
    ARGV[3]   the audit draft (JSON)
    ARGV[4]   the audit draft of the submission when the move stamps sentAtMs (JSON, '')
    ARGV[5..] options.noticeCount outbox keys (notices queued with the move), then the
              fields to set as field/value pairs (state, updatedAtMs and claimId included;
              limitDay is set here when reserved)

  Output:
    {'throttled'} (the press is over its limit: nothing read, nothing moved) |
    {'not_found'} | {'corrupt'} | {'over_limit', HGETALL, 'payer'|'merchant', used} |
    {'signed', HGETALL} (a signature recorded, the payout not moved) |
    {'unchanged'|'wrong_state'|'payment_taken'|'already_signed'|'not_initiator'|'initiator_not_allowed'|
     'decider_not_allowed'|'decider_too_new'|'expired'|'needs_approval'|'batch_stopped'|
     'applied', HGETALL}, and with a slot asked, 'applied' has a third element: 1 when the
    slot was granted, 0 when the limit was full (the move is made either way)
    'batch_stopped': a claim (a move to `submitting`) of a batch's row whose batch is no
    longer `running`. 'payment_taken': the paymentId is indexed to another payout (one
    payment settles one payout). A move made is audited with the states before and after;
    a resend or a refusal is not.

  The payout's status group indexes (everyone's and its initiator's) move with the state in
  the same step when the group changes. The payment index, spending and initiator's status
  group keys are built here from their prefix rather than passed in KEYS: a move without a
  paymentId in its patch (a settlement) must still give the index the record's lifetime, a
  move that gives back must find the day the payout reserved, and the initiator is read from
  the record; only the script knows the stored values at that moment. Fine on a single Redis
  (not Cluster). So are the day's totals (`totalsPrefix .. totalsDay`, and its initiator's),
  counted here once when the move reaches a final state the API gave (totals.lua).
]]
--!include audit.lua
--!include spending.lua
--!include rate-limit.lua
--!include totals.lua
--!include signatures.lua
--!include wake.lua

local record = KEYS[1]
local o = cjson.decode(ARGV[1])
-- A press counted here, before anything is read (features/shared/confirm-ahead.ts): one
-- over its limit moves nothing. A resend of a claim this call already made is not counted
-- again (it would otherwise be refused after its move was made).
if (o.pressKey or '') ~= '' and not (o.claim ~= '' and redis.call('HGET', record, 'claimId') == o.claim) then
  local presses = redis.call('INCR', o.pressKey)
  if presses == 1 then redis.call('PEXPIRE', o.pressKey, o.pressWindowMs) end
  if presses > tonumber(o.pressLimit) then return {'throttled'} end
end
if redis.call('EXISTS', record) == 0 then return {'not_found'} end
local id, target, claim, now = o.id, o.target, o.claim, o.nowMs
local expires, retention = o.expires == '1', o.retentionMs
local paymentPrefix, paymentId = o.paymentPrefix, ARGV[2]
local auditDraft, auditMinId, submitDraft = ARGV[3], o.auditMinId, ARGV[4]
local expectedInitiator, notExpiredAt, trackAt = o.expectedInitiator, o.notExpiredAt, o.trackAt
local spendPrefix, reserveDay, payerCap, merchantCap = o.spendPrefix, o.reserveDay, o.payerCap, o.merchantCap
local givingBack, spendKept = o.givesBack == '1', o.spendKeptMs
local amountBelow, reserveKind, batchPrefix = o.amountBelow, o.reserveKind, o.batchPrefix
local staffKey, grantedKey, initiatorRoles = o.staffKey, o.grantedKey, o.initiatorRoles
local deciderId, deciderRoles = o.deciderId, o.deciderRoles
local sources = {}
for _, state in ipairs(o.sources) do sources[state] = true end
local cursor = 5
local notices = {}
-- A batch's row has no payer's notice of its own: its batch tells the payer.
local batchRow = redis.call('HEXISTS', record, 'batchId') == 1
local settledPrefix = o.settledPrefix
for _ = 1, tonumber(o.noticeCount) do
  local notice = ARGV[cursor]
  if not (batchRow and string.sub(notice, 1, #settledPrefix) == settledPrefix) then
    notices[#notices + 1] = notice
  end
  cursor = cursor + 1
end
local stateSets = {}
for k, state in ipairs(o.trackedStates) do stateSets[state] = KEYS[4 + k] end

local current = redis.call('HGET', record, 'state')
if expectedInitiator ~= '' and redis.call('HGET', record, 'initiatorId') ~= expectedInitiator then
  return {'not_initiator', redis.call('HGETALL', record)}
end
-- A resend of a call that already applied finds its own claim. The claim is written
-- again (same value) so that a durability wait after this call covers the record even on
-- a connection that did not make the first write.
if claim ~= '' and current == target and redis.call('HGET', record, 'claimId') == claim then
  redis.call('HSET', record, 'claimId', claim)
  return {'unchanged', redis.call('HGETALL', record)}
end
if not sources[current] then return {'wrong_state', redis.call('HGETALL', record)} end
-- A batch's row is claimed only while its batch runs: once Stop has moved the batch on, no
-- row of it may leave, whatever a worker read a moment before.
if target == '"submitting"' and batchRow then
  local ok, batchId = pcall(cjson.decode, redis.call('HGET', record, 'batchId'))
  local raw = ok and type(batchId) == 'string' and redis.call('GET', batchPrefix .. batchId)
  local running = false
  if raw then
    local decoded, batch = pcall(cjson.decode, raw)
    running = decoded and type(batch) == 'table' and batch.state == 'running'
  end
  if not running then return {'batch_stopped', redis.call('HGETALL', record)} end
end
-- Standing is read from the staff record now, in this step: a payer removed or demoted
-- since asking is refused by every claim; an approver made after the ask cannot decide.
if initiatorRoles ~= '' then
  local role = redis.call('HGET', staffKey, redis.call('HGET', record, 'initiatorId'))
  if not role or not string.find(initiatorRoles, ',' .. role .. ',', 1, true) then
    return {'initiator_not_allowed', redis.call('HGETALL', record)}
  end
  -- A press claimed ahead of the access step's reads (pressKey) was drafted with the role
  -- this process remembered: the audit names the role just read.
  if (o.pressKey or '') ~= '' and role ~= nil then
    local actorRole = '"actorRole":"' .. role .. '"'
    auditDraft = string.gsub(auditDraft, '"actorRole":"%a+"', actorRole, 1)
    submitDraft = string.gsub(submitDraft, '"actorRole":"%a+"', actorRole, 1)
  end
end
if deciderId ~= '' then
  local role = redis.call('HGET', staffKey, deciderId)
  if not role or not string.find(deciderRoles, ',' .. role .. ',', 1, true) then
    return {'decider_not_allowed', redis.call('HGETALL', record)}
  end
  local granted = tonumber(redis.call('HGET', grantedKey, deciderId) or '0') or 0
  local asked = tonumber(redis.call('HGET', record, 'createdAtMs'))
  if asked and granted > asked then return {'decider_too_new', redis.call('HGETALL', record)} end
end
if notExpiredAt ~= '' then
  local expiresAt = tonumber(redis.call('HGET', record, 'expiresAtMs'))
  if expiresAt and expiresAt < tonumber(notExpiredAt) then
    return {'expired', redis.call('HGETALL', record)}
  end
end
local amount = tonumber(redis.call('HGET', record, 'amount'))
if amountBelow ~= '' and amount and amount >= tonumber(amountBelow) then
  return {'needs_approval', redis.call('HGETALL', record)}
end
-- An approval by signatures: the earlier signatures still count only while their signer is
-- on staff in the band's roles (deciderRoles) and was so when the payout was asked for; the
-- same person never counts twice. Short of the rule, this signature is recorded and the
-- payout keeps waiting; the last one makes the move below, in this same step.
local signatures
if (o.sigNeeded or '') ~= '' then
  signatures = keptSignatures(record, staffKey, grantedKey, deciderRoles)
  for _, signature in ipairs(signatures) do
    if string.format('%d', signature.userId) == deciderId then
      return {'already_signed', redis.call('HGETALL', record)}
    end
  end
  signatures[#signatures + 1] = {userId = tonumber(deciderId), atMs = tonumber(now)}
  if #signatures < tonumber(o.sigNeeded) then
    redis.call('HSET', record, 'signatures', cjson.encode(signatures), 'updatedAtMs', now)
    for _, notice in ipairs(o.signNotices) do redis.call('ZADD', KEYS[2], now, notice) end
    if #o.signNotices > 0 then wake(KEYS[2], 'outbox') end
    audit(KEYS[3], auditMinId, o.signDraft, false, false, record)
    return {'signed', redis.call('HGETALL', record)}
  end
end
if reserveKind ~= '' and redis.call('HGET', record, 'kind') ~= reserveKind then reserveDay = '' end
-- A payout that already holds its amount on a day (asked for approval yesterday, approved
-- today) moves the hold to the day of this move: checked against that day's caps, and the
-- old day given back in the same step. Held on this very day already: nothing to move.
local heldDay = reservedDayOf(record)
if reserveDay ~= '' and heldDay == reserveDay then reserveDay = '' end

if paymentId ~= '' then
  local owner = redis.call('GET', paymentPrefix .. paymentId)
  if owner and owner ~= id then return {'payment_taken', redis.call('HGETALL', record)} end
end
if paymentId == '' then
  local stored = redis.call('HGET', record, 'paymentId')
  if stored then
    local ok, decoded = pcall(cjson.decode, stored)
    if not ok or type(decoded) ~= 'string' then return {'corrupt'} end
    paymentId = decoded
  end
end
local spender = 'user:' .. redis.call('HGET', record, 'initiatorId')
if reserveDay ~= '' then
  local limit, used = overLimit(spendPrefix .. reserveDay, spender, amount, payerCap, merchantCap)
  if limit then return {'over_limit', redis.call('HGETALL', record), limit, used} end
end
local releasedDay = (givingBack or reserveDay ~= '') and heldDay

redis.call('HSET', record, unpack(ARGV, cursor))
if signatures then redis.call('HSET', record, 'signatures', cjson.encode(signatures)) end
if reserveDay ~= '' then
  spend(spendPrefix .. reserveDay, spender, amount, spendKept)
  redis.call('HSET', record, 'limitDay', cjson.encode(reserveDay))
end
if releasedDay then giveBack(spendPrefix .. releasedDay, spender, amount) end
if expires then redis.call('PEXPIRE', record, retention) else redis.call('PERSIST', record) end
if stateSets[current] then redis.call('SREM', stateSets[current], id) end
if stateSets[target] and redis.call('SADD', stateSets[target], id) == 1 then
  -- An approval to lapse, or a request that may strand: the sweeps that watch them wake.
  for _, queue in ipairs({'state:awaiting_approval', 'state:submitting'}) do
    local key = stateSets[target]
    if string.sub(key, -#queue) == queue then wake(key, queue) end
  end
end
-- (A record without its initiator or creation time, which PayoutSchema never lets be
-- written, is left out of them rather than failing the move half-written.)
-- (`current` is one of the sources here: options.groups names each source's group.)
local fromGroup, toGroup = o.groups[current], o.groups[target]
local initiator = redis.call('HGET', record, 'initiatorId')
local created = redis.call('HGET', record, 'createdAtMs')
if fromGroup ~= toGroup and initiator and tonumber(created or '') then
  if fromGroup then
    redis.call('ZREM', o.statusKeys[fromGroup], id)
    redis.call('ZREM', o.userStatusPrefixes[fromGroup] .. initiator, id)
  end
  local cutoff = '(' .. (tonumber(now) - tonumber(retention))
  for _, index in ipairs({o.statusKeys[toGroup], o.userStatusPrefixes[toGroup] .. initiator}) do
    redis.call('ZADD', index, created, id)
    redis.call('ZREMRANGEBYSCORE', index, '-inf', cutoff)
  end
  redis.call('PEXPIRE', o.userStatusPrefixes[toGroup] .. initiator, retention)
end
if paymentId ~= '' then
  local index = paymentPrefix .. paymentId
  if expires then redis.call('SET', index, id, 'PX', retention) else redis.call('SET', index, id) end
end
for _, notice in ipairs(notices) do redis.call('ZADD', KEYS[2], now, notice) end
if #notices > 0 then wake(KEYS[2], 'outbox') end
if trackAt ~= '' then
  redis.call('ZADD', KEYS[4], trackAt, id)
  wake(KEYS[4], 'tracking')
end
if o.untrack == '1' then redis.call('ZREM', KEYS[4], id) end
audit(KEYS[3], auditMinId, auditDraft, current, target, record)
if (o.totalsDay or '') ~= '' then countSettled(record, o.totalsPrefix, o.totalsDay, o.totalsKeptMs) end
-- The request leaves right after this move: stamped and audited with it.
if submitDraft ~= '' then stampSent(KEYS[3], auditMinId, submitDraft, record) end
local extra = 5 + #o.trackedStates
local asksSlot = (o.slotLimit or '') ~= ''
if asksSlot then extra = extra + 1 end
-- A settlement's last-paid time for a saved number (a number not saved stays unsaved).
if (o.paidPhone or '') ~= '' and target == '"success"' and redis.call('HEXISTS', KEYS[extra], o.paidPhone) == 1 then
  redis.call('HSET', KEYS[extra + 1], o.paidPhone, o.paidAtMs)
end
-- The request's slot, taken only now that the move is made: a refused claim takes none.
if asksSlot then
  local granted = takeSlot(
    KEYS[5 + #o.trackedStates], o.slotLimit, o.slotWindowMs, o.slotMember, o.slotBackgroundLimit
  )
  return {'applied', redis.call('HGETALL', record), granted}
end
return {'applied', redis.call('HGETALL', record)}
