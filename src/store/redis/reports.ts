/**
 * ReportsStore on Redis: a key per day whose digest was queued (SET NX and the outbox
 * entry in one script), and a hash of each operation's last seen state, compared and
 * changed in one script with the alert it calls for.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { OperationObservation, OperationState } from "../../model/availability.js";
import type { Keys } from "../keys.js";
import {
  availabilityAuditDraft,
  availabilityNoticeKey,
  DIGEST_MARK_MS,
  decodeOperationState,
  digestNoticeKey,
  observedState,
  operationField,
} from "../reports-codec.js";
import type { AvailabilityChange, ReportsStore } from "../types.js";
import { luaScript, runScript } from "./scripts.js";

/** KEYS: day mark, outbox. ARGV: mark lifetime (ms), nowMs, notice. 1 when queued now. */
const DIGEST_ONCE_SCRIPT = luaScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  return 1
end
return 0
`);

/**
 * KEYS: availability hash, outbox, audit stream. ARGV: field, up ("1"/"0"), nowMs, the
 * state if changed (JSON), its notice, the state if first seen (JSON), its notice, and the
 * audit entry (field `e`) of each, written with the alert (the signed event's outbox).
 * The up-or-down of each operation is kept in a field of its own (`field:up`), so the
 * script compares plain strings and writes states it was given, never JSON of its own.
 * Returns {"same", state} | {"changed", state, previous} | {"first", state}.
 */
const OBSERVE_SCRIPT = luaScript(`
local field, up, now = ARGV[1], ARGV[2], ARGV[3]
local seen = redis.call('HGET', KEYS[1], field .. ':up')
local previous = redis.call('HGET', KEYS[1], field)
if seen == up and previous then return {'same', previous} end
local changed = seen ~= false and previous ~= false
local state, notice = ARGV[6], ARGV[7]
if changed then state, notice = ARGV[4], ARGV[5] end
redis.call('HSET', KEYS[1], field, state, field .. ':up', up)
if changed or up == '0' then
  redis.call('ZADD', KEYS[2], now, notice)
  local entry = ARGV[9]
  if changed then entry = ARGV[8] end
  redis.call('XADD', KEYS[3], '*', 'e', entry)
end
if changed then return {'changed', state, previous} end
return {'first', state}
`);

const ObserveReplySchema = z.union([
  z.tuple([z.enum(["same", "first"]), z.string()]),
  z.tuple([z.literal("changed"), z.string(), z.string()]),
]);

export class RedisReportsStore implements ReportsStore {
  readonly #redis: Redis;
  readonly #keys: Keys;

  constructor(redis: Redis, keys: Keys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async queueDigestOnce(day: string, nowMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      DIGEST_ONCE_SCRIPT,
      [this.#keys.digestMark(day), this.#keys.outbox()],
      [DIGEST_MARK_MS, nowMs, digestNoticeKey(day)],
    );
    return z.number().parse(reply) === 1;
  }

  async observeAvailability(
    observation: OperationObservation,
    nowMs: number,
  ): Promise<AvailabilityChange> {
    const changed = observedState(observation, nowMs, false);
    const first = observedState(observation, nowMs, true);
    const reply = ObserveReplySchema.parse(
      await runScript(
        this.#redis,
        OBSERVE_SCRIPT,
        [this.#keys.availability(), this.#keys.outbox(), this.#keys.auditLog()],
        [
          operationField(observation),
          changed.up ? "1" : "0",
          nowMs,
          JSON.stringify(changed),
          availabilityNoticeKey(changed),
          JSON.stringify(first),
          availabilityNoticeKey(first),
          JSON.stringify(availabilityAuditDraft(changed)),
          JSON.stringify(availabilityAuditDraft(first)),
        ],
      ),
    );
    const state = this.#decode(reply[1]);
    if (reply[0] !== "changed") return { kind: reply[0], state };
    return { kind: "changed", state, previous: this.#decode(reply[2]) };
  }

  async availability(): Promise<OperationState[]> {
    const hash = z
      .record(z.string(), z.string())
      .parse(await this.#redis.hgetall(this.#keys.availability()));
    return Object.entries(hash)
      .filter(([field]) => !field.endsWith(":up"))
      .flatMap(([, text]) => decodeOperationState(text) ?? []);
  }

  #decode(text: string): OperationState {
    const state = decodeOperationState(text);
    if (!state) throw new Error("stored availability state does not read");
    return state;
  }
}
