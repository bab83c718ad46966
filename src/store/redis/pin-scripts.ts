/**
 * The scripts of the step-up PINs (redis/pins.ts). One hash per person (keys.ts: `pin:`):
 * `hash`, `setAtMs`, `tries` (wrong tries in a row, counted when a try begins) and
 * `lockedUntilMs`. A lock writes its alert into the outbox in the same step.
 */
import { luaScript } from "../lua.js";

/** KEYS: pin hash. ARGV: hash, nowMs. 1 when set now, 0 when one was set already. */
export const SET_IF_NONE_SCRIPT = luaScript(`
if redis.call('HSETNX', KEYS[1], 'hash', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'setAtMs', ARGV[2], 'tries', 0)
redis.call('HDEL', KEYS[1], 'lockedUntilMs')
return 1
`);

/**
 * KEYS: pin hash, outbox. ARGV: nowMs, max tries, lock until (ms), the lock's notice.
 * {'none'} | {'locked', untilMs, "1" locked now | "0"} | {'try', hash}. More tries begun
 * at once than the limit allows lock the PIN there and then (and queue the alert).
 */
export const BEGIN_TRY_SCRIPT = luaScript(`
local now, max = tonumber(ARGV[1]), tonumber(ARGV[2])
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock), '0'} end
local hash = redis.call('HGET', KEYS[1], 'hash')
if not hash then return {'none'} end
local tries = redis.call('HINCRBY', KEYS[1], 'tries', 1)
if tries > max then
  redis.call('HSET', KEYS[1], 'lockedUntilMs', ARGV[3], 'tries', 0)
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  return {'locked', ARGV[3], '1'}
end
return {'try', hash}
`);

/**
 * KEYS: pin hash, outbox. ARGV: "1" right | "0" wrong, nowMs, max tries, lock until (ms),
 * the lock's notice. {'right'} | {'wrong', left} | {'locked', untilMs, "1" just now | "0"}.
 */
export const FINISH_TRY_SCRIPT = luaScript(`
local now, max = tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('HEXISTS', KEYS[1], 'hash') == 0 then
  if ARGV[1] == '1' then return {'right'} end
  return {'wrong', tostring(max)}
end
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'tries', 0)
  return {'right'}
end
local lock = tonumber(redis.call('HGET', KEYS[1], 'lockedUntilMs') or '0')
if lock > now then return {'locked', tostring(lock), '0'} end
local tries = tonumber(redis.call('HGET', KEYS[1], 'tries') or '0')
if tries >= max then
  redis.call('HSET', KEYS[1], 'lockedUntilMs', ARGV[4], 'tries', 0)
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  return {'locked', ARGV[4], '1'}
end
return {'wrong', tostring(max - tries)}
`);
