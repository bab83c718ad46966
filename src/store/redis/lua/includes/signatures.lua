--[[
  The signatures of a payout waiting for several approvers (APPROVAL_RULES), for the payout
  move, so that counting them and the move are one step.

  keptSignatures(record, staffKey, grantedKey, roles): the payout's signatures (its
    `signatures` field, a JSON list of {userId, atMs}) whose signer is on staff now in one
    of `roles` (',a,b,') and got that role no later than the payout was asked for
    (`createdAtMs`): a signer removed or demoted since no longer counts. A list that does
    not read is an empty one (the rule then needs every signature again).
]]
--[[
  signersStand(s): whether every signer of `s` ({ids, roles (',a,b,'), asked, staffKey,
    grantedKey}) is on staff now in one of `roles`, granted no later than `asked`: the
    standing of signatures counted from an earlier read of the staff, checked in the move.
]]
local function signersStand(s)
  for _, id in ipairs(s.ids) do
    local role = redis.call('HGET', s.staffKey, id)
    local granted = tonumber(redis.call('HGET', s.grantedKey, id) or '0') or 0
    if not role or not string.find(s.roles, ',' .. role .. ',', 1, true)
      or granted > tonumber(s.asked) then
      return false
    end
  end
  return true
end

local function keptSignatures(record, staffKey, grantedKey, roles)
  local kept = {}
  local raw = redis.call('HGET', record, 'signatures')
  if not raw then return kept end
  local ok, list = pcall(cjson.decode, raw)
  if not ok or type(list) ~= 'table' then return kept end
  local asked = tonumber(redis.call('HGET', record, 'createdAtMs') or '') or 0
  for _, signature in ipairs(list) do
    local userId = type(signature) == 'table' and tonumber(signature.userId)
    if userId then
      local id = string.format('%d', userId)
      local role = redis.call('HGET', staffKey, id)
      local granted = tonumber(redis.call('HGET', grantedKey, id) or '0') or 0
      if role and string.find(roles, ',' .. role .. ',', 1, true) and granted <= asked then
        kept[#kept + 1] = {userId = userId, atMs = tonumber(signature.atMs)}
      end
    end
  end
  return kept
end
