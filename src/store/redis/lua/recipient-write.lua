--[[
  Changes one saved recipient if it is still at the revision the change was made on (a
  compare-and-set), keeping the count of aliases per number in step.

  Input:
    KEYS[1] the recipients hash      (alias key → Recipient JSON)
    KEYS[2] the numbers hash         (phone → how many aliases name it)
    KEYS[3] the last-paid hash       (phone → ms)

    ARGV[1] the alias key
    ARGV[2] the expected revision    ('0': no entry)
    ARGV[3] the new entry's JSON     ('': remove the entry)
    ARGV[4] the new entry's phone    ('' when removing)
    ARGV[5] the most entries kept

  Output:
    {'written'}, {'full'}, or {'conflict', current JSON or ''}
]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
local rev = 0
local oldPhone = false
if current then
  local ok, entry = pcall(cjson.decode, current)
  if ok and type(entry) == 'table' and type(entry.rev) == 'number' then
    rev = entry.rev
    if type(entry.phone) == 'string' then oldPhone = entry.phone end
  else
    -- An entry that does not read is never overwritten blindly.
    rev = -1
  end
end
if tostring(rev) ~= ARGV[2] then return {'conflict', current or ''} end
if ARGV[3] ~= '' and not current and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then
  return {'full'}
end

local function forgetPhone(phone)
  if redis.call('HINCRBY', KEYS[2], phone, -1) <= 0 then
    redis.call('HDEL', KEYS[2], phone)
    redis.call('HDEL', KEYS[3], phone)
  end
end

if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  if oldPhone then forgetPhone(oldPhone) end
  return {'written'}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if oldPhone ~= ARGV[4] then
  redis.call('HINCRBY', KEYS[2], ARGV[4], 1)
  if oldPhone then forgetPhone(oldPhone) end
end
return {'written'}
