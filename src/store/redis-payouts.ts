/**
 * PayoutStore on Redis: one hash per payout (each field one property, JSON-encoded so
 * numbers keep full precision), history indexes as sorted sets, in-flight states as sets.
 * Every move is one Lua script (redis-payout-scripts.ts), so the lifecycle's
 * compare-and-set holds across replicas. Reads are validated with PayoutSchema; a record
 * that fails is reported as CorruptRecordError, never patched up.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { type Logger, silentLogger } from "../logger.js";
import type { Actor } from "../model/audit.js";
import {
  PAYOUT_STATES,
  type PayoutEvent,
  type TrackedState,
  targetOf,
} from "../model/lifecycle.js";
import type { Payout, PayoutPatch } from "../model/payout.js";
import { auditMinId, payoutDraftJson } from "./audit-codec.js";
import type { RedisDurability } from "./durability.js";
import type { Keys } from "./keys.js";
import { type LuaScript, runScript } from "./lua.js";
import {
  CorruptRecordError,
  checkPatch,
  checkPayout,
  decodePayout,
  encodeFields,
  PayoutExistsError,
  pairsToRecord,
} from "./payout-codec.js";
import { createScript, listByPhoneScript } from "./redis-payout-create.js";
import { createdPage, readPayouts } from "./redis-payout-reads.js";
import { MarkSendingReplySchema, TransitionReplySchema } from "./redis-payout-replies.js";
import {
  flag,
  MARK_SENDING_SCRIPT,
  TRANSITION_SCRIPT,
  transitionCall,
  UPDATE_SCRIPT,
} from "./redis-payout-scripts.js";
import { parseJsonOrUndefined, replyAt } from "./redis-reply.js";
import type {
  Created,
  CreatedPage,
  DurableOption,
  MarkSendingResult,
  PayoutListOptions,
  PayoutStore,
  StatePageOptions,
  TransitionOptions,
  TransitionResult,
} from "./types.js";

const HashSchema = z.record(z.string(), z.string());
const StateSchema = z.enum(PAYOUT_STATES);
const IdsSchema = z.array(z.string()); // built once: building one costs more than running it
const [PairsOrNullSchema, CountSchema] = [IdsSchema.nullable(), z.number()];

export interface RedisPayoutStoreOptions {
  keys: Keys;
  /** Makes the writes asked to be durable wait until persisted; without it, none waits. */
  durability?: RedisDurability;
  /** How long a payout is kept after its last move, unless it is in flight. */
  retentionMs: number;
  logger?: Logger;
  /** Clock for `updatedAtMs`, the outbox and index trimming; Date.now by default. */
  now?: () => number;
}

export class RedisPayoutStore implements PayoutStore {
  readonly #redis: Redis;
  readonly #keys: Keys;
  readonly #retentionMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #durability: RedisDurability | undefined;

  constructor(redis: Redis, options: RedisPayoutStoreOptions) {
    this.#redis = redis;
    this.#keys = options.keys;
    this.#retentionMs = options.retentionMs;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#durability = options.durability;
  }

  /** Runs a payout script, durably when asked and a durability plan is set. */
  async #run(
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    durable: boolean | undefined,
  ): Promise<{ reply: unknown; durable: boolean }> {
    if (durable && this.#durability) return this.#durability.runScript(script, keys, args);
    return { reply: await runScript(this.#redis, script, keys, args), durable: true };
  }

  async create(payout: Payout, options: { actor?: Actor } = {}): Promise<Created> {
    const record = checkPayout(payout);
    const call = createScript.call(
      this.#keys,
      record,
      this.#now(),
      this.#retentionMs,
      options.actor,
    );
    const reply = await runScript(this.#redis, createScript.script, call.keys, call.args);
    const { stored, replaced } = createScript.reply(reply, (json) => {
      const state = StateSchema.safeParse(parseJsonOrUndefined(json));
      return state.success ? state.data : null;
    });
    if (!stored) throw new PayoutExistsError(record.id);
    return { replaced };
  }

  async openPrompt(chatId: number, userId: number): Promise<string | null> {
    return this.#redis.get(this.#keys.prompt(chatId, userId));
  }

  async get(id: string): Promise<Payout | null> {
    const hash = HashSchema.parse(await this.#redis.hgetall(this.#keys.payout(id)));
    return Object.keys(hash).length === 0 ? null : this.#decode(id, hash);
  }

  async transition(
    id: string,
    event: PayoutEvent,
    patch: PayoutPatch = {},
    options: TransitionOptions = {},
  ): Promise<TransitionResult> {
    // A claim that could not be kept durable is refused before it is made: nothing moves.
    if (options.durable && targetOf(event) === "submitting") {
      await this.#durability?.ensureClaimsDurable();
    }
    const { keys, args } = transitionCall({
      keys: this.#keys,
      id,
      event,
      patch: checkPatch(patch),
      options,
      nowMs: this.#now(),
      retentionMs: this.#retentionMs,
    });
    const { reply, durable } = await this.#run(TRANSITION_SCRIPT, keys, args, options.durable);
    const parsed = TransitionReplySchema.parse(reply);
    if (parsed.fields === null) {
      if (parsed.status === "not_found") return { ok: false, reason: "not_found" };
      throw this.#corrupt(new CorruptRecordError(id, ["paymentId: not a JSON string"]));
    }
    const payout = this.#decode(id, pairsToRecord(parsed.fields));
    if (parsed.over) return { ok: false, reason: "over_limit", payout, ...parsed.over };
    if (parsed.status !== "applied" && parsed.status !== "unchanged") {
      return { ok: false, reason: parsed.status, payout };
    }
    return { ok: true, payout, applied: parsed.status === "applied", durable };
  }

  async markSending(
    id: string,
    claimId: string,
    options: DurableOption & { actor?: Actor } = {},
  ): Promise<MarkSendingResult> {
    const nowMs = this.#now();
    const ran = await this.#run(
      MARK_SENDING_SCRIPT,
      [this.#keys.payout(id), this.#keys.auditLog()],
      [
        JSON.stringify(claimId),
        payoutDraftJson(id, "submit", nowMs, options.actor, undefined),
        auditMinId(nowMs, this.#retentionMs),
      ],
      options.durable,
    );
    const reply = MarkSendingReplySchema.parse(ran.reply);
    if (reply[0] === "not_found") return { ok: false, payout: null };
    if (reply[0] === "sending") {
      return { ok: true, sentAtMs: Number(reply[1]), durable: ran.durable };
    }
    return { ok: false, payout: this.#decode(id, pairsToRecord(reply[1])) };
  }

  async update(id: string, patch: PayoutPatch): Promise<Payout | null> {
    const checked = checkPatch(patch);
    const fields = encodeFields(checked);
    if (fields.length === 0) return this.get(id);
    const reply = await runScript(
      this.#redis,
      UPDATE_SCRIPT,
      [this.#keys.payout(id), this.#keys.paymentIndex(checked.paymentId ?? "")],
      [id, flag(checked.paymentId !== undefined), ...fields],
    );
    const hash = PairsOrNullSchema.parse(reply);
    return hash === null ? null : this.#decode(id, pairsToRecord(hash));
  }

  async findByPaymentId(paymentId: string): Promise<Payout | null> {
    const id = await this.#redis.get(this.#keys.paymentIndex(paymentId));
    if (id === null) return null;
    const payout = await this.get(id);
    return payout?.paymentId === paymentId ? payout : null;
  }

  async listByPhone(
    phone: string,
    page: { sinceMs: number; offset: number; limit: number },
  ): Promise<Payout[]> {
    if (page.limit <= 0) return [];
    const call = listByPhoneScript.call(this.#keys, phone, page);
    const reply = await runScript(this.#redis, listByPhoneScript.script, call.keys, call.args);
    return listByPhoneScript
      .reply(reply)
      .map(([id, fields]) => this.#decode(id, pairsToRecord(fields)));
  }

  /** Covers payouts created within the retention window (older index entries are trimmed). */
  async list(options: PayoutListOptions): Promise<{ items: Payout[]; total: number }> {
    const index =
      options.userId === undefined
        ? this.#keys.allPayouts()
        : this.#keys.userPayouts(options.userId);
    if (options.limit <= 0) return { items: [], total: await this.#redis.zcard(index) };
    const replies = await this.#redis
      .multi()
      .zremrangebyscore(index, "-inf", `(${this.#now() - this.#retentionMs}`)
      .zrevrange(index, options.offset, options.offset + options.limit - 1)
      .zcard(index)
      .exec();
    const ids = IdsSchema.parse(replyAt(replies, 1));
    const total = CountSchema.parse(replyAt(replies, 2));
    const { found, missing } = await this.#getMany(ids);
    if (missing.length > 0) await this.#redis.zrem(index, ...missing);
    return { items: found, total: total - missing.length };
  }

  async listCreated(options: {
    fromMs: number;
    toMs: number;
    limit: number;
    after?: string;
  }): Promise<CreatedPage> {
    if (options.limit <= 0) return { items: [] };
    const page = await createdPage(this.#redis, this.#keys.allPayouts(), options);
    // A record gone (expired) is skipped; list() drops it from the index.
    const { found } = await this.#getMany(page.ids);
    return page.next === undefined ? { items: found } : { items: found, next: page.next };
  }

  async listInState(state: TrackedState): Promise<Payout[]> {
    return this.#stillIn(state, await this.#redis.smembers(this.#keys.stateSet(state)));
  }

  async pageInState(state: TrackedState, options: StatePageOptions): Promise<CreatedPage> {
    const set = this.#keys.stateSet(state);
    const [cursor, ids] = await this.#redis.sscan(
      set,
      options.after ?? "0",
      "COUNT",
      options.limit,
    );
    const items = await this.#stillIn(state, ids);
    return cursor === "0" ? { items } : { items, next: cursor };
  }

  /** The payouts of a state set's `ids` still in `state`; the others leave the set. */
  async #stillIn(state: TrackedState, ids: readonly string[]): Promise<Payout[]> {
    const { found, missing } = await this.#getMany(ids);
    const current = found.filter((payout) => payout.state === state);
    const stale = [...missing, ...found.filter((p) => p.state !== state).map((p) => p.id)];
    if (stale.length > 0) await this.#redis.srem(this.#keys.stateSet(state), ...stale);
    return current;
  }

  async idsInState(state: TrackedState): Promise<string[]> {
    // May include an id whose record just moved on: callers re-read before acting.
    return this.#redis.smembers(this.#keys.stateSet(state));
  }

  /** HGETALL of each id in one round trip; ids whose record is gone come back in `missing`. */
  #getMany(ids: readonly string[]): Promise<{ found: Payout[]; missing: string[] }> {
    return readPayouts(this.#redis, this.#keys, ids, (id, hash) => this.#decode(id, hash));
  }

  #decode(id: string, hash: Readonly<Record<string, string>>): Payout {
    try {
      return decodePayout(id, hash);
    } catch (error) {
      if (error instanceof CorruptRecordError) throw this.#corrupt(error);
      throw error;
    }
  }

  #corrupt(error: CorruptRecordError): CorruptRecordError {
    this.#logger.error(
      { payoutId: error.payoutId, problems: error.problems },
      "stored payout is corrupt",
    );
    return error;
  }
}
