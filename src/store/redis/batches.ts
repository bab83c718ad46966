/**
 * Batches on Redis. A batch is one JSON string (`p batch:{id}`), moved by one script that
 * checks its state, merges the patch, queues its notices in the outbox and appends its
 * audit entry, all in one atomic step. Its rows are a list (`p batch:{id}:rows`) of JSON,
 * in spreadsheet order. `p batches` and `p user:{id}:batches` index them by creation time;
 * `p batches:active` holds the ones the worker has something to do for. A batch that ends
 * is kept for the retention, like a payout.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { type Actor, actorFields } from "../../model/audit.js";
import {
  type Batch,
  type BatchPatch,
  type BatchRow,
  BatchRowSchema,
  BatchSchema,
  type BatchState,
  FINAL_BATCH_STATES,
  WORKED_BATCH_STATES,
} from "../../model/batch.js";
import { type Notice, noticeKey } from "../../model/notice.js";
import { auditMinId, draftJson } from "../audit-codec.js";
import type { BatchMoveOptions, BatchMoveResult, BatchStore } from "../batch-store.js";
import type { Keys } from "../keys.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import { luaScript, runScript } from "./scripts.js";

/**
 * KEYS: batch, rows, active set, outbox, audit stream.
 * ARGV: allowed states (JSON array; "" = any), new state ("" = unchanged), patch (JSON),
 *       nowMs, notices (JSON array of outbox keys), audit draft (JSON or ""), audit min id,
 *       retention ms, final states (JSON array), worked states (JSON array),
 *       expected version ("" = any).
 * Returns {1, batch JSON} when moved, {0, batch JSON or ""} when not.
 */
const MOVE_SCRIPT = luaScript(`
local raw = redis.call('GET', KEYS[1])
if not raw then return {0, ''} end
local batch = cjson.decode(raw)
local from = batch.state
if ARGV[1] ~= '' then
  local allowed = false
  for _, state in ipairs(cjson.decode(ARGV[1])) do
    if state == from then allowed = true end
  end
  if not allowed then return {0, raw} end
end
if ARGV[11] ~= '' and (tonumber(batch.version) or 0) ~= tonumber(ARGV[11]) then
  return {0, raw}
end
for field, value in pairs(cjson.decode(ARGV[3])) do batch[field] = value end
if ARGV[2] ~= '' then
  batch.state = ARGV[2]
  batch.version = (tonumber(batch.version) or 0) + 1
end
batch.updatedAtMs = tonumber(ARGV[4])
local encoded = cjson.encode(batch)
redis.call('SET', KEYS[1], encoded, 'KEEPTTL')
local function member(list, value)
  for _, item in ipairs(cjson.decode(list)) do if item == value then return true end end
  return false
end
if member(ARGV[9], batch.state) then
  redis.call('SREM', KEYS[3], batch.id)
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
  redis.call('PEXPIRE', KEYS[2], ARGV[8])
elseif member(ARGV[10], batch.state) then
  redis.call('SADD', KEYS[3], batch.id)
else
  redis.call('SREM', KEYS[3], batch.id)
end
for _, notice in ipairs(cjson.decode(ARGV[5])) do redis.call('ZADD', KEYS[4], ARGV[4], notice) end
if ARGV[6] ~= '' then
  local draft = cjson.decode(ARGV[6])
  draft.details = draft.details or {}
  draft.details.from = from
  draft.details.to = batch.state
  local fields = {'e', cjson.encode(draft)}
  if batch.totalXaf then
    fields[#fields + 1] = 'amount'
    fields[#fields + 1] = string.format('%d', batch.totalXaf)
  end
  redis.call('XADD', KEYS[5], 'MINID', '~', ARGV[7], '*', unpack(fields))
end
return {1, encoded}
`);

const MoveReplySchema = z.tuple([z.union([z.literal(0), z.literal(1)]), z.string()]);

export interface RedisBatchStoreOptions {
  keys: Keys;
  retentionMs: number;
  now?: () => number;
}

export class RedisBatchStore implements BatchStore {
  readonly #redis: Redis;
  readonly #keys: Keys;
  readonly #retentionMs: number;
  readonly #now: () => number;

  constructor(redis: Redis, options: RedisBatchStoreOptions) {
    this.#redis = redis;
    this.#keys = options.keys;
    this.#retentionMs = options.retentionMs;
    this.#now = options.now ?? Date.now;
  }

  async create(batch: Batch, rows: readonly BatchRow[], actor: Actor): Promise<boolean> {
    const record = checkInput(BatchSchema, batch, "batch");
    const nowMs = this.#now();
    const stored = await this.#redis.set(
      this.#keys.batch(record.id),
      JSON.stringify(record),
      "PX",
      this.#retentionMs,
      "NX",
    );
    if (stored !== "OK") return false;
    const multi = this.#redis.multi();
    const rowsKey = this.#keys.batchRows(record.id);
    for (let start = 0; start < rows.length; start += 200) {
      const chunk = rows.slice(start, start + 200).map((row) => JSON.stringify(row));
      multi.rpush(rowsKey, ...chunk);
    }
    multi.pexpire(rowsKey, this.#retentionMs);
    for (const index of [this.#keys.userBatches(record.initiatorId), this.#keys.allBatches()]) {
      multi.zadd(index, record.createdAtMs, record.id);
      multi.zremrangebyscore(index, "-inf", `(${nowMs - this.#retentionMs}`);
    }
    if (WORKED_BATCH_STATES.includes(record.state)) {
      multi.sadd(this.#keys.activeBatches(), record.id);
    }
    const draft = {
      atMs: nowMs,
      ...actorFields(actor),
      action: "batch_upload" as const,
      batchId: record.id,
      details: { rows: record.rowCount, file: record.fileName },
    };
    multi.xadd(
      this.#keys.auditLog(),
      "MINID",
      "~",
      auditMinId(nowMs, this.#retentionMs),
      "*",
      "e",
      draftJson(draft),
    );
    await multi.exec();
    return true;
  }

  async get(id: string): Promise<Batch | null> {
    return readBatch(await this.#redis.get(this.#keys.batch(id)));
  }

  async rows(id: string, from: number, count: number): Promise<BatchRow[]> {
    if (count <= 0) return [];
    const raw = await this.#redis.lrange(this.#keys.batchRows(id), from, from + count - 1);
    return raw.map((text) => BatchRowSchema.parse(parseJsonOrUndefined(text)));
  }

  async setRows(id: string, rows: ReadonlyArray<{ index: number; row: BatchRow }>): Promise<void> {
    if (rows.length === 0) return;
    const multi = this.#redis.multi();
    for (const { index, row } of rows) {
      multi.lset(
        this.#keys.batchRows(id),
        index,
        JSON.stringify(checkInput(BatchRowSchema, row, "row")),
      );
    }
    await multi.exec();
  }

  move(
    id: string,
    from: readonly BatchState[],
    to: BatchState,
    patch: BatchPatch = {},
    options: BatchMoveOptions = {},
  ): Promise<BatchMoveResult> {
    return this.#run(id, JSON.stringify(from), to, patch, options);
  }

  async update(id: string, patch: BatchPatch, notices?: readonly Notice[]): Promise<Batch | null> {
    const result = await this.#run(id, "", "", patch, { notices });
    return result.ok ? result.batch : null;
  }

  async #run(
    id: string,
    from: string,
    to: BatchState | "",
    patch: BatchPatch,
    options: BatchMoveOptions,
  ): Promise<BatchMoveResult> {
    const nowMs = this.#now();
    const { audit } = options;
    const draft = audit
      ? draftJson({
          atMs: nowMs,
          ...actorFields(audit.actor),
          action: `batch_${audit.action}`,
          batchId: id,
          ...(audit.details ? { details: audit.details } : {}),
        })
      : "";
    const reply = await runScript(
      this.#redis,
      MOVE_SCRIPT,
      [
        this.#keys.batch(id),
        this.#keys.batchRows(id),
        this.#keys.activeBatches(),
        this.#keys.outbox(),
        this.#keys.auditLog(),
      ],
      [
        from,
        to,
        JSON.stringify(patch),
        nowMs,
        JSON.stringify((options.notices ?? []).map(noticeKey)),
        draft,
        auditMinId(nowMs, this.#retentionMs),
        this.#retentionMs,
        JSON.stringify(FINAL_BATCH_STATES),
        JSON.stringify(WORKED_BATCH_STATES),
        options.expectVersion === undefined ? "" : options.expectVersion,
      ],
    );
    const [moved, json] = MoveReplySchema.parse(reply);
    const batch = readBatch(json === "" ? null : json);
    return moved === 1 && batch ? { ok: true, batch } : { ok: false, batch };
  }

  async active(): Promise<string[]> {
    return this.#redis.smembers(this.#keys.activeBatches());
  }

  async list(options: { userId?: number; limit: number }): Promise<Batch[]> {
    const index =
      options.userId === undefined
        ? this.#keys.allBatches()
        : this.#keys.userBatches(options.userId);
    const ids = await this.#redis.zrevrange(index, 0, options.limit - 1);
    if (ids.length === 0) return [];
    const records = await this.#redis.mget(ids.map((id) => this.#keys.batch(id)));
    return records.map(readBatch).filter((batch): batch is Batch => batch !== null);
  }
}

/** A stored batch, checked; null when there is none (or it does not read as one). */
function readBatch(json: string | null): Batch | null {
  if (json === null) return null;
  const parsed = BatchSchema.safeParse(parseJsonOrUndefined(json));
  return parsed.success ? parsed.data : null;
}
