/**
 * Schedules on Redis. A schedule is one JSON string (`p schedule:{id}`), moved by one
 * script that checks its state (and, for the scheduler, that its next run is still the one
 * it read), merges the patch, keeps the due index, queues its notices in the outbox and
 * appends its audit entry, in one atomic step. Its runs are a hash (`p schedule:{id}:runs`,
 * run key → JSON) written by a second script on the same terms.
 *
 * Keys (p = prefix; named in store/keys.ts):
 *   p schedule:{id}        STRING one schedule, JSON; kept while it may still run, for the
 *                                 retention once ended (a prompt never confirmed: the same)
 *   p schedule:{id}:runs   HASH   run key (YYYYMMDDHHMM) → ScheduleRun JSON; goes with it
 *   p schedule:{id}:rows   STRING a scheduled batch's rows, one JSON array (compact: number,
 *                                 operator, name, amount, note); goes with it
 *   p schedules            ZSET   schedule ids by createdAtMs
 *   p schedules:due        ZSET   active schedules by their next run's time
 *   p schedules:held       SET    `{scheduleId}:{runKey}` of every run held
 *   p schedules:sending    ZSET   `{scheduleId}:{runKey}` of every run sending, by when it
 *                                 went sending (a crash leaves one there: see sendingRuns)
 */
import { z } from "zod";
import type { AuditDraft } from "../../model/audit.js";
import { noticeKey } from "../../model/notice.js";
import {
  ENDED_SCHEDULE_STATES,
  RUNNING_SCHEDULE_STATES,
  type RunState,
  type Schedule,
  type ScheduledRow,
  ScheduledRowSchema,
  type SchedulePatch,
  type ScheduleRun,
  ScheduleRunSchema,
  ScheduleSchema,
  type ScheduleState,
} from "../../model/schedule.js";
import { auditMinId, draftJson } from "../audit-codec.js";
import type { Keys } from "../keys.js";
import type {
  RunWriteOptions,
  RunWriteResult,
  ScheduleMoveOptions,
  ScheduleMoveResult,
  ScheduleStore,
} from "../schedule-store.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

const ReplySchema = z.tuple([z.union([z.literal(0), z.literal(1)]), z.string()]);

export interface RedisScheduleStoreOptions {
  /** The keys of the schedules, and the outbox and audit stream written with them. */
  keys: Keys;
  /** How long audit entries are kept (the stream is trimmed past it). */
  retentionMs: number;
  now?: () => number;
}

export class RedisScheduleStore implements ScheduleStore {
  readonly #redis: RedisClient;
  readonly #options: RedisScheduleStoreOptions;
  readonly #now: () => number;

  constructor(redis: RedisClient, options: RedisScheduleStoreOptions) {
    this.#redis = redis;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get #keys(): Keys {
    return this.#options.keys;
  }

  async create(
    schedule: Schedule,
    audit: AuditDraft,
    rows: readonly ScheduledRow[] = [],
  ): Promise<boolean> {
    const record = checkInput(ScheduleSchema, schedule, "schedule");
    const rowsJson = JSON.stringify(rows.map((row) => checkInput(ScheduledRowSchema, row, "row")));
    // A prompt never confirmed goes after the retention; Confirm keeps it (see lua/schedule-move.lua).
    const stored = await this.#redis.set(
      this.#keys.schedule(record.id),
      JSON.stringify(record),
      "PX",
      this.#options.retentionMs,
      "NX",
    );
    if (stored !== "OK") return false;
    const nowMs = this.#now();
    const multi = this.#redis.multi();
    if (rows.length > 0) {
      // Kept as the schedule is: for the retention until Confirm keeps both (schedule-move).
      multi.set(this.#keys.scheduleRows(record.id), rowsJson, "PX", this.#options.retentionMs);
    }
    await multi
      .zadd(this.#keys.allSchedules(), record.createdAtMs, record.id)
      .xadd(
        this.#keys.auditLog(),
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
    return readSchedule(await this.#redis.get(this.#keys.schedule(id)));
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
      SCRIPTS["schedule-move"],
      [
        this.#keys.schedule(id),
        this.#keys.schedulesDue(),
        this.#keys.outbox(),
        this.#keys.auditLog(),
        this.#keys.scheduleRuns(id),
        this.#keys.scheduleRows(id),
      ],
      [
        JSON.stringify({
          allowed: from,
          to,
          nowMs: String(nowMs),
          minId: auditMinId(nowMs, this.#options.retentionMs),
          running: RUNNING_SCHEDULE_STATES,
          expectRunKey: options.expectRunKey ?? "",
          expectExpiresAtMs:
            options.expectExpiresAtMs === undefined ? "" : String(options.expectExpiresAtMs),
          ...(options.signers === undefined
            ? {}
            : {
                signers: {
                  ids: options.signers.userIds.map((id) => String(id)),
                  roles: `,${options.signers.roles.join(",")},`,
                  asked: String(options.signers.askedAtMs),
                  staffKey: this.#keys.staff(),
                  grantedKey: this.#keys.staffGranted(),
                },
              }),
          retentionMs: String(this.#options.retentionMs),
          ended: ENDED_SCHEDULE_STATES,
        }),
        JSON.stringify(patch),
        JSON.stringify(options.unset ?? []),
        JSON.stringify((options.notices ?? []).map(noticeKey)),
        options.audit ? draftJson(options.audit) : "",
      ],
    );
    const [moved, json] = ReplySchema.parse(reply);
    const schedule = readSchedule(json === "" ? null : json);
    return moved === 1 && schedule ? { ok: true, schedule } : { ok: false, schedule };
  }

  async list(limit: number): Promise<Schedule[]> {
    const ids = await this.#redis.zrevrange(this.#keys.allSchedules(), 0, limit * 2 - 1);
    if (ids.length === 0) return [];
    const records = await this.#redis.mget(ids.map((id) => this.#keys.schedule(id)));
    // Gone after the retention: its index entry goes too, now.
    const gone = ids.filter((_, index) => records[index] === null);
    if (gone.length > 0) await this.#redis.zrem(this.#keys.allSchedules(), ...gone);
    return records
      .map(readSchedule)
      .filter((schedule): schedule is Schedule => schedule !== null && schedule.state !== "deleted")
      .slice(0, limit);
  }

  async due(atMs: number, limit: number): Promise<string[]> {
    return this.#redis.zrangebyscore(this.#keys.schedulesDue(), "-inf", atMs, "LIMIT", 0, limit);
  }

  async upcoming(
    fromMs: number,
    toMs: number,
    limit: number,
  ): Promise<Array<{ id: string; atMs: number }>> {
    const reply = await this.#redis.zrangebyscore(
      this.#keys.schedulesDue(),
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

  async rows(id: string): Promise<ScheduledRow[]> {
    const json = await this.#redis.get(this.#keys.scheduleRows(id));
    if (json === null) return [];
    return z.array(ScheduledRowSchema).parse(parseJsonOrUndefined(json));
  }

  async run(scheduleId: string, key: string): Promise<ScheduleRun | null> {
    return readRun(await this.#redis.hget(this.#keys.scheduleRuns(scheduleId), key));
  }

  async writeRun(
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    options: RunWriteOptions = {},
  ): Promise<RunWriteResult> {
    const record = checkInput(ScheduleRunSchema, run, "schedule run");
    const nowMs = this.#now();
    const reply = await runScript(
      this.#redis,
      SCRIPTS["schedule-run"],
      [
        this.#keys.scheduleRuns(record.scheduleId),
        this.#keys.schedulesHeld(),
        this.#keys.outbox(),
        this.#keys.auditLog(),
        this.#keys.schedule(record.scheduleId),
        this.#keys.schedulesSending(),
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
        options.scheduleIn ? JSON.stringify(options.scheduleIn) : "",
      ],
    );
    const [written, json] = ReplySchema.parse(reply);
    const stored = readRun(json === "" ? null : json);
    return written === 1 && stored ? { ok: true, run: stored } : { ok: false, run: stored };
  }

  async sendingRuns(beforeMs: number, limit: number): Promise<ScheduleRun[]> {
    const index = this.#keys.schedulesSending();
    const members = await this.#redis.zrangebyscore(index, "-inf", beforeMs, "LIMIT", 0, limit);
    if (members.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const member of members) {
      const [scheduleId = "", key = ""] = member.split(":");
      pipeline.hget(this.#keys.scheduleRuns(scheduleId), key);
    }
    const replies = (await pipeline.exec()) ?? [];
    const runs = replies.map(([, value]) => readRun(typeof value === "string" ? value : null));
    // Gone with its schedule after the retention: its index entry goes too, now.
    const gone = members.filter((_, index) => runs[index] === null);
    if (gone.length > 0) await this.#redis.zrem(index, ...gone);
    return runs.filter((run): run is ScheduleRun => run?.state === "sending");
  }

  async heldRuns(): Promise<ScheduleRun[]> {
    const members = await this.#redis.smembers(this.#keys.schedulesHeld());
    const pipeline = this.#redis.pipeline();
    for (const member of members) {
      const [scheduleId = "", key = ""] = member.split(":");
      pipeline.hget(this.#keys.scheduleRuns(scheduleId), key);
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
