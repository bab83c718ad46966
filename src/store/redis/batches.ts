/**
 * Batches on Redis. A batch is one JSON string (`p batch:{id}`), moved by one script that
 * checks its state, merges the patch, queues its notices in the outbox and appends its
 * audit entry, all in one atomic step. Its rows are a list (`p batch:{id}:rows`) of JSON,
 * in spreadsheet order. `p batches` and `p user:{id}:batches` index them by creation time;
 * `p batches:active` holds the ones the worker has something to do for. A batch that ends
 * is kept for the retention, like a payout.
 */
import { z } from "zod";
import { type Actor, actorFields } from "../../model/audit.js";
import {
  type Batch,
  type BatchPatch,
  type BatchRow,
  BatchRowSchema,
  BatchSchema,
  type BatchState,
  type BatchTally,
  emptyTally,
  FINAL_BATCH_STATES,
  rowPayoutIdPrefix,
  standingOfState,
  WORKED_BATCH_STATES,
} from "../../model/batch.js";
import { PAYOUT_STATES } from "../../model/lifecycle.js";
import { type Notice, noticeKey } from "../../model/notice.js";
import { auditMinId, draftJson } from "../audit-codec.js";
import type { BatchMoveOptions, BatchMoveResult, BatchStore } from "../batch-store.js";
import { type Keys, wakeChannel } from "../keys.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

const MoveReplySchema = z.tuple([z.union([z.literal(0), z.literal(1)]), z.string()]);

/** {rows read, paid, failed, pending, unknown, skipped, paid XAF, fees XAF} (batch-tally.lua) */
const TallyReplySchema = z.array(z.number().int().nonnegative()).length(8);

/** Rows counted per script call: about 1 ms of Redis (a JSON row and a payout's HMGET each). */
const TALLY_PAGE = 200;

/** Each state (JSON, as stored) → how a payable row whose payout is in it stands. */
const STANDINGS = Object.fromEntries(
  PAYOUT_STATES.map((state) => [JSON.stringify(state), standingOfState(state)]),
);

export interface RedisBatchStoreOptions {
  keys: Keys;
  retentionMs: number;
  now?: () => number;
}

export class RedisBatchStore implements BatchStore {
  readonly #redis: RedisClient;
  readonly #keys: Keys;
  readonly #retentionMs: number;
  readonly #now: () => number;

  constructor(redis: RedisClient, options: RedisBatchStoreOptions) {
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
      // Every replica's batch worker may rest until woken (lua/includes/wake.lua).
      const keyPrefix = this.#keys.prefix;
      multi.publish(wakeChannel(keyPrefix), `batches:active ${keyPrefix}`);
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

  async tally(id: string): Promise<BatchTally> {
    const tally = emptyTally();
    const payoutPrefix = this.#keys.payout(rowPayoutIdPrefix(id));
    for (let from = 0; ; from += TALLY_PAGE) {
      const options = { from: String(from), count: String(TALLY_PAGE), payoutPrefix };
      const reply = await runScript(
        this.#redis,
        SCRIPTS["batch-tally"],
        [this.#keys.batchRows(id)],
        [JSON.stringify({ ...options, standings: STANDINGS })],
      );
      const [
        read = 0,
        paid = 0,
        failed = 0,
        pending = 0,
        unknown = 0,
        skipped = 0,
        paidXaf = 0,
        feesXaf = 0,
      ] = TallyReplySchema.parse(reply);
      tally.paid += paid;
      tally.failed += failed;
      tally.pending += pending;
      tally.unknown += unknown;
      tally.skipped += skipped;
      tally.paidXaf += paidXaf;
      tally.feesXaf += feesXaf;
      if (read < TALLY_PAGE) return tally;
    }
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
    return this.#run(id, from, to, patch, options);
  }

  async update(id: string, patch: BatchPatch, notices?: readonly Notice[]): Promise<Batch | null> {
    const result = await this.#run(id, undefined, "", patch, { notices });
    return result.ok ? result.batch : null;
  }

  /** `from`: the states the batch may leave (undefined: any); `to` "": the state unchanged. */
  async #run(
    id: string,
    from: readonly BatchState[] | undefined,
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
      SCRIPTS["batch-move"],
      [
        this.#keys.batch(id),
        this.#keys.batchRows(id),
        this.#keys.activeBatches(),
        this.#keys.outbox(),
        this.#keys.auditLog(),
      ],
      [
        JSON.stringify({
          ...(from === undefined ? {} : { allowed: from }),
          to,
          nowMs: String(nowMs),
          auditMinId: auditMinId(nowMs, this.#retentionMs),
          retentionMs: String(this.#retentionMs),
          finalStates: FINAL_BATCH_STATES,
          workedStates: WORKED_BATCH_STATES,
          version: options.expectVersion === undefined ? "" : String(options.expectVersion),
          ...(options.signers === undefined ? {} : { signers: this.#signers(options.signers) }),
        }),
        JSON.stringify(patch),
        JSON.stringify((options.notices ?? []).map(noticeKey)),
        draft,
      ],
    );
    const [moved, json] = MoveReplySchema.parse(reply);
    const batch = readBatch(json === "" ? null : json);
    return moved === 1 && batch ? { ok: true, batch } : { ok: false, batch };
  }

  /** `BatchMoveOptions.signers` as the script takes them (lua/batch-move.lua). */
  #signers(signers: NonNullable<BatchMoveOptions["signers"]>) {
    return {
      ids: signers.userIds.map((id) => String(id)),
      roles: `,${signers.roles.join(",")},`,
      asked: String(signers.askedAtMs),
      staffKey: this.#keys.staff(),
      grantedKey: this.#keys.staffGranted(),
    };
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
