/**
 * Schedules on Redis. A schedule is one JSON string (`p schedule:{id}`), moved by one
 * script that checks its state (and, for the scheduler, that its next run is still the one
 * it read), merges the patch, keeps the due index, queues its notices in the outbox and
 * appends its audit entry, in one atomic step. Its runs are a hash (`p schedule:{id}:runs`,
 * run key → JSON) written by a second script on the same terms.
 *
 * Keys (p = prefix):
 *   p schedule:{id}        STRING one schedule, JSON; kept while it may still run, for the
 *                                 retention once ended (a prompt never confirmed: the same)
 *   p schedule:{id}:runs   HASH   run key (YYYYMMDDHHMM) → ScheduleRun JSON; goes with it
 *   p schedules            ZSET   schedule ids by createdAtMs
 *   p schedules:due        ZSET   active schedules by their next run's time
 *   p schedules:held       SET    `{scheduleId}:{runKey}` of every run held
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { AuditDraft } from "../model/audit.js";
import { noticeKey } from "../model/notice.js";
import {
  RUNNING_SCHEDULE_STATES,
  type RunState,
  type Schedule,
  type SchedulePatch,
  type ScheduleRun,
  ScheduleRunSchema,
  ScheduleSchema,
  type ScheduleState,
} from "../model/schedule.js";
import { auditMinId, draftJson } from "./audit-codec.js";
import { luaScript, runScript } from "./lua.js";
import { parseJsonOrUndefined } from "./redis-reply.js";
import type {
  RunWriteResult,
  ScheduleMoveOptions,
  ScheduleMoveResult,
  ScheduleStore,
  ScheduleWriteOptions,
} from "./schedule-store.js";
import { checkInput } from "./schemas.js";

/** The shared tail of both scripts: notices (ARGV[n]) and the audit entry (ARGV[n+1..]). */
const WRITTEN_LUA = `
local function written(outbox, audit, notices, draft, minId, nowMs, from, to)
  for _, notice in ipairs(cjson.decode(notices)) do redis.call('ZADD', outbox, nowMs, notice) end
  if draft ~= '' then
    local entry = cjson.decode(draft)
    if type(entry.details) ~= 'table' then entry.details = {} end
    entry.details.from = from
    entry.details.to = to
    redis.call('XADD', audit, 'MINID', '~', minId, '*', 'e', cjson.encode(entry))
  end
end
`;

/**
 * KEYS: schedule, due index, outbox, audit stream, runs.
 * ARGV: allowed states (JSON array), new state, patch (JSON object), fields to remove (JSON
 *       array), nowMs, notices (JSON array of outbox keys), audit draft (JSON or ""), audit
 *       min id, running states (JSON array), expected next run key ("" = any), retention
 *       (ms), ended states (JSON array: the schedule and its runs are kept for the
 *       retention, then go; in any other state they are kept as long as it is).
 * Returns {1, schedule JSON} when moved, {0, schedule JSON or ""} when not.
 */
const MOVE_SCRIPT = luaScript(`${WRITTEN_LUA}
local raw = redis.call('GET', KEYS[1])
if not raw then return {0, ''} end
local schedule = cjson.decode(raw)
local from = schedule.state
local allowed = false
for _, state in ipairs(cjson.decode(ARGV[1])) do
  if state == from then allowed = true end
end
if not allowed then return {0, raw} end
if ARGV[10] ~= '' and schedule.nextRunKey ~= ARGV[10] then return {0, raw} end
for field, value in pairs(cjson.decode(ARGV[3])) do schedule[field] = value end
for _, field in ipairs(cjson.decode(ARGV[4])) do schedule[field] = nil end
schedule.state = ARGV[2]
schedule.updatedAtMs = tonumber(ARGV[5])
local encoded = cjson.encode(schedule)
redis.call('SET', KEYS[1], encoded)
local ended = false
for _, state in ipairs(cjson.decode(ARGV[12])) do
  if state == schedule.state then ended = true end
end
if ended then
  redis.call('PEXPIRE', KEYS[1], ARGV[11])
  redis.call('PEXPIRE', KEYS[5], ARGV[11])
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[5])
end
local running = false
for _, state in ipairs(cjson.decode(ARGV[9])) do
  if state == schedule.state then running = true end
end
if running and schedule.nextRunAtMs then
  redis.call('ZADD', KEYS[2], schedule.nextRunAtMs, schedule.id)
else
  redis.call('ZREM', KEYS[2], schedule.id)
end
written(KEYS[3], KEYS[4], ARGV[6], ARGV[7], ARGV[8], ARGV[5], from, schedule.state)
return {1, encoded}
`);

/**
 * KEYS: runs hash, held set, outbox, audit stream.
 * ARGV: run key, run (JSON), allowed recorded states (JSON array; "none": not recorded),
 *       nowMs, notices (JSON array), audit draft (JSON or ""), audit min id, held member.
 * Returns {1, run JSON} when written, {0, run JSON or ""} when not.
 */
const RUN_SCRIPT = luaScript(`${WRITTEN_LUA}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local from = 'none'
if raw then from = cjson.decode(raw).state end
local allowed = false
for _, state in ipairs(cjson.decode(ARGV[3])) do
  if state == from then allowed = true end
end
if not allowed then return {0, raw or ''} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local to = cjson.decode(ARGV[2]).state
if to == 'held' then
  redis.call('SADD', KEYS[2], ARGV[8])
else
  redis.call('SREM', KEYS[2], ARGV[8])
end
written(KEYS[3], KEYS[4], ARGV[5], ARGV[6], ARGV[7], ARGV[4], from, to)
return {1, ARGV[2]}
`);

/** States a schedule never leaves: it is kept for the retention, then goes with its runs. */
const ENDED_STATES: readonly ScheduleState[] = [
  "finished",
  "deleted",
  "cancelled",
  "expired",
  "rejected",
];

const ReplySchema = z.tuple([z.union([z.literal(0), z.literal(1)]), z.string()]);

export interface RedisScheduleStoreOptions {
  /** The key prefix (Keys.prefix). */
  prefix: string;
  /** The outbox and audit stream keys (Keys.outbox(), Keys.auditLog()). */
  outboxKey: string;
  auditKey: string;
  /** How long audit entries are kept (the stream is trimmed past it). */
  retentionMs: number;
  now?: () => number;
}

export class RedisScheduleStore implements ScheduleStore {
  readonly #redis: Redis;
  readonly #options: RedisScheduleStoreOptions;
  readonly #now: () => number;

  constructor(redis: Redis, options: RedisScheduleStoreOptions) {
    this.#redis = redis;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  #key(part: string): string {
    return `${this.#options.prefix}${part}`;
  }

  async create(schedule: Schedule, audit: AuditDraft): Promise<boolean> {
    const record = checkInput(ScheduleSchema, schedule, "schedule");
    // A prompt never confirmed goes after the retention; Confirm keeps it (see MOVE_SCRIPT).
    const stored = await this.#redis.set(
      this.#key(`schedule:${record.id}`),
      JSON.stringify(record),
      "PX",
      this.#options.retentionMs,
      "NX",
    );
    if (stored !== "OK") return false;
    const nowMs = this.#now();
    await this.#redis
      .multi()
      .zadd(this.#key("schedules"), record.createdAtMs, record.id)
      .xadd(
        this.#options.auditKey,
        "MINID",
        "~",
        auditMinId(nowMs, this.#options.retentionMs),
        "*",
        "e",
        draftJson(audit),
      )
      .exec();
    return true;
  }

  async get(id: string): Promise<Schedule | null> {
    return readSchedule(await this.#redis.get(this.#key(`schedule:${id}`)));
  }

  async move(
    id: string,
    from: readonly ScheduleState[],
    to: ScheduleState,
    patch: SchedulePatch,
    options: ScheduleMoveOptions = {},
  ): Promise<ScheduleMoveResult> {
    const nowMs = this.#now();
    const reply = await runScript(
      this.#redis,
      MOVE_SCRIPT,
      [
        this.#key(`schedule:${id}`),
        this.#key("schedules:due"),
        this.#options.outboxKey,
        this.#options.auditKey,
        this.#key(`schedule:${id}:runs`),
      ],
      [
        JSON.stringify(from),
        to,
        JSON.stringify(patch),
        JSON.stringify(options.unset ?? []),
        nowMs,
        JSON.stringify((options.notices ?? []).map(noticeKey)),
        options.audit ? draftJson(options.audit) : "",
        auditMinId(nowMs, this.#options.retentionMs),
        JSON.stringify(RUNNING_SCHEDULE_STATES),
        options.expectRunKey ?? "",
        this.#options.retentionMs,
        JSON.stringify(ENDED_STATES),
      ],
    );
    const [moved, json] = ReplySchema.parse(reply);
    const schedule = readSchedule(json === "" ? null : json);
    return moved === 1 && schedule ? { ok: true, schedule } : { ok: false, schedule };
  }

  async list(limit: number): Promise<Schedule[]> {
    const ids = await this.#redis.zrevrange(this.#key("schedules"), 0, limit * 2 - 1);
    if (ids.length === 0) return [];
    const records = await this.#redis.mget(ids.map((id) => this.#key(`schedule:${id}`)));
    // Gone after the retention: its index entry goes too, now.
    const gone = ids.filter((_, index) => records[index] === null);
    if (gone.length > 0) await this.#redis.zrem(this.#key("schedules"), ...gone);
    return records
      .map(readSchedule)
      .filter((schedule): schedule is Schedule => schedule !== null && schedule.state !== "deleted")
      .slice(0, limit);
  }

  async due(atMs: number, limit: number): Promise<string[]> {
    return this.#redis.zrangebyscore(this.#key("schedules:due"), "-inf", atMs, "LIMIT", 0, limit);
  }

  async upcoming(
    fromMs: number,
    toMs: number,
    limit: number,
  ): Promise<Array<{ id: string; atMs: number }>> {
    const reply = await this.#redis.zrangebyscore(
      this.#key("schedules:due"),
      `(${fromMs}`,
      toMs,
      "WITHSCORES",
      "LIMIT",
      0,
      limit,
    );
    const found: Array<{ id: string; atMs: number }> = [];
    for (let index = 0; index + 1 < reply.length; index += 2) {
      found.push({ id: reply[index] ?? "", atMs: Number(reply[index + 1]) });
    }
    return found;
  }

  async run(scheduleId: string, key: string): Promise<ScheduleRun | null> {
    return readRun(await this.#redis.hget(this.#key(`schedule:${scheduleId}:runs`), key));
  }

  async writeRun(
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    options: ScheduleWriteOptions = {},
  ): Promise<RunWriteResult> {
    const record = checkInput(ScheduleRunSchema, run, "schedule run");
    const nowMs = this.#now();
    const reply = await runScript(
      this.#redis,
      RUN_SCRIPT,
      [
        this.#key(`schedule:${record.scheduleId}:runs`),
        this.#key("schedules:held"),
        this.#options.outboxKey,
        this.#options.auditKey,
      ],
      [
        record.key,
        JSON.stringify(record),
        JSON.stringify(from),
        nowMs,
        JSON.stringify((options.notices ?? []).map(noticeKey)),
        options.audit ? draftJson(options.audit) : "",
        auditMinId(nowMs, this.#options.retentionMs),
        `${record.scheduleId}:${record.key}`,
      ],
    );
    const [written, json] = ReplySchema.parse(reply);
    const stored = readRun(json === "" ? null : json);
    return written === 1 && stored ? { ok: true, run: stored } : { ok: false, run: stored };
  }

  async heldRuns(): Promise<ScheduleRun[]> {
    const members = await this.#redis.smembers(this.#key("schedules:held"));
    const pipeline = this.#redis.pipeline();
    for (const member of members) {
      const [scheduleId = "", key = ""] = member.split(":");
      pipeline.hget(this.#key(`schedule:${scheduleId}:runs`), key);
    }
    const replies = (await pipeline.exec()) ?? [];
    return replies
      .map(([, value]) => readRun(typeof value === "string" ? value : null))
      .filter((run): run is ScheduleRun => run?.state === "held");
  }
}

/** A stored schedule, checked; null when there is none (or it does not read as one). */
function readSchedule(json: string | null): Schedule | null {
  if (json === null) return null;
  const parsed = ScheduleSchema.safeParse(parseJsonOrUndefined(json));
  return parsed.success ? parsed.data : null;
}

function readRun(json: string | null): ScheduleRun | null {
  if (json === null) return null;
  const parsed = ScheduleRunSchema.safeParse(parseJsonOrUndefined(json));
  return parsed.success ? parsed.data : null;
}
