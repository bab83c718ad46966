/**
 * PayoutStore on Redis: one hash per payout (each field one property, JSON-encoded so
 * numbers keep full precision), history indexes as sorted sets, in-flight states as sets.
 * Every creation and move is one Lua script (lua/payout-*.lua), so the lifecycle's
 * compare-and-set holds across replicas: a check and the writes that depend on it cannot be
 * interleaved with another replica's. Reads are validated with PayoutSchema; a record that
 * fails is reported as CorruptRecordError, never patched up. Many records are read in one
 * round trip, and the creation index page by page (exports, the digest), never at once.
 */
import { z } from "zod";
import { type Logger, silentLogger } from "../../logger.js";
import type { Actor } from "../../model/audit.js";
import {
  expiresInState,
  isTracked,
  PAYOUT_STATES,
  type PayoutEvent,
  type PayoutState,
  TRACKED_STATES,
  type TrackedState,
  targetOf,
} from "../../model/lifecycle.js";
import type { Payout, PayoutPatch } from "../../model/payout.js";
import { searchWordsOf, statusGroupOf } from "../../model/search.js";
import { COUNTED_STATES, countedAtMs, type DayTotals } from "../../model/totals.js";
import { DEFAULT_TIME_ZONE } from "../../time.js";
import { auditMinId, payoutDraftJson } from "../audit-codec.js";
import { CorruptRecordError, PayoutExistsError } from "../errors.js";
import type { Keys } from "../keys.js";
import type { OldestInStateOptions } from "../oldest-in-state.js";
import {
  checkPatch,
  checkPayout,
  decodePayout,
  encodeFields,
  pairsToRecord,
  recordLifetimeMs,
} from "../payout-codec.js";
import type { RepeatQuery } from "../payout-store.js";
import { parseJsonOrUndefined } from "../schemas.js";
import type {
  Created,
  CreatedPage,
  DurableOption,
  MarkSendingResult,
  PayoutListOptions,
  PayoutStore,
  StatePageOptions,
  StatusListOptions,
  TransitionOptions,
  TransitionResult,
  WordMatches,
  WordQuery,
} from "../types.js";
import type { RedisClient } from "./connection.js";
import type { RedisDurability } from "./durability.js";
import { createdPage } from "./index-pages.js";
import { readByPaymentId } from "./payout-by-payment.js";
import { flag, readTransitionReply, totalsArgs, transitionArgs } from "./payout-move-args.js";
import { readLatestRepeat } from "./payout-repeats.js";
import { RedisPayoutSearch } from "./payout-search.js";
import { replyAt } from "./reply.js";
import { type LuaScript, runScript, SCRIPTS } from "./scripts.js";
import { readDayTotals } from "./settled-totals.js";

const HashSchema = z.record(z.string(), z.string());
/** payouts-oldest-in-state.lua: the count, then the oldest ids. */
const OldestReplySchema = z.tuple([z.number().int()]).rest(z.string());
const IdsSchema = z.array(z.string()); // built once: building a schema costs more than running it
const [PairsOrNullSchema, CountSchema] = [IdsSchema.nullable(), z.number()];
const StateSchema = z.enum(PAYOUT_STATES);

const CreateReplySchema = z.union([
  z.tuple([z.literal(0)]),
  z.tuple([z.literal(1)]),
  z.tuple([z.literal(1), z.string(), z.string()]),
]);

/** The replies of payout-mark-sending.lua, read strictly. */
const MarkSendingReplySchema = z.union([
  z.tuple([z.literal("not_found")]),
  z.tuple([z.literal("sending"), z.string().regex(/^\d+$/)]),
  z.tuple([z.literal("moved"), z.array(z.string())]),
]);

/** payouts-by-phone.lua: {id, HGETALL, id, HGETALL, …}. */
const ByPhoneReplySchema = z.array(z.union([z.string(), z.array(z.string())]));

export interface RedisPayoutStoreOptions {
  keys: Keys;
  /** Makes the writes asked to be durable wait until persisted; without it, none waits. */
  durability?: RedisDurability;
  /** How long a payout is kept after its last move, unless it is in flight. */
  retentionMs: number;
  logger?: Logger;
  /** Clock for `updatedAtMs`, the outbox and index trimming; Date.now by default. */
  now?: () => number;
  /** TIME_ZONE: the day a settled payout is counted on (model/totals.ts); default Douala. */
  timeZone?: string;
}

export class RedisPayoutStore implements PayoutStore {
  readonly #redis: RedisClient;
  readonly #keys: Keys;
  readonly #retentionMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #durability: RedisDurability | undefined;
  readonly #search: RedisPayoutSearch;
  readonly #timeZone: string;

  constructor(redis: RedisClient, options: RedisPayoutStoreOptions) {
    this.#redis = redis;
    this.#keys = options.keys;
    this.#retentionMs = options.retentionMs;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#durability = options.durability;
    this.#timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
    this.#search = new RedisPayoutSearch(redis, {
      keys: options.keys,
      retentionMs: options.retentionMs,
      now: this.#now,
      decode: (id, hash) => this.#decode(id, hash),
    });
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
    const k = this.#keys;
    const nowMs = this.#now();
    const retentionMs = this.#retentionMs;
    const group = statusGroupOf(record.state);
    const words = searchWordsOf(record);
    const reply = await runScript(
      this.#redis,
      SCRIPTS["payout-create"],
      [
        k.payout(record.id),
        k.userPayouts(record.initiatorId),
        k.allPayouts(),
        k.stateSet(record.state),
        k.paymentIndex(record.paymentId ?? ""),
        k.auditLog(),
        k.phonePayouts(record.phone),
        k.prompt(record.chatId, record.initiatorId),
        k.statusPayouts(group, record.initiatorId),
        k.statusPayouts(group),
        k.searchVocabulary(),
        k.searchVocabularySeen(),
        ...words.map((word) => k.searchWord(word)),
      ],
      [
        JSON.stringify({
          id: record.id,
          createdAtMs: String(record.createdAtMs),
          cutoffMs: String(nowMs - retentionMs),
          retentionMs: String(retentionMs),
          expires: flag(expiresInState(record.state)),
          tracked: flag(isTracked(record.state)),
          hasPaymentId: flag(record.paymentId !== undefined),
          lifetimeMs: String(recordLifetimeMs(record, nowMs, retentionMs) ?? retentionMs),
          auditMinId: auditMinId(nowMs, retentionMs),
          payoutPrefix: k.payout(""),
          words,
          ...totalsArgs(
            k,
            COUNTED_STATES.has(record.state) ? countedAtMs(record) : undefined,
            this.#timeZone,
            retentionMs,
          ),
        }),
        payoutDraftJson(record.id, "prompt", nowMs, options.actor, undefined),
        ...encodeFields(record),
      ],
    );
    const parsed = CreateReplySchema.parse(reply);
    if (parsed[0] === 0) throw new PayoutExistsError(record.id);
    const [, replacedId, state] = parsed;
    if (replacedId === undefined) return { replaced: null };
    return { replaced: { id: replacedId, state: readState(state ?? "") } };
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
    const { keys, args } = transitionArgs({
      keys: this.#keys,
      id,
      event,
      patch: checkPatch(patch),
      options,
      nowMs: this.#now(),
      retentionMs: this.#retentionMs,
      timeZone: this.#timeZone,
    });
    const { reply, durable } = await this.#run(
      SCRIPTS["payout-transition"],
      keys,
      args,
      options.durable,
    );
    const parsed = readTransitionReply(reply);
    if (parsed.fields === null) {
      if (parsed.status === "not_found") return { ok: false, reason: "not_found" };
      if (parsed.status === "throttled") return { ok: false, reason: "throttled" };
      throw this.#corrupt(new CorruptRecordError(id, ["paymentId: not a JSON string"]));
    }
    const payout = this.#decode(id, pairsToRecord(parsed.fields));
    if (parsed.over) return { ok: false, reason: "over_limit", payout, ...parsed.over };
    if (parsed.status === "signed")
      return { ok: true, payout, applied: false, durable, signed: true };
    if (parsed.status !== "applied" && parsed.status !== "unchanged") {
      return { ok: false, reason: parsed.status, payout };
    }
    const applied = parsed.status === "applied";
    if (parsed.slot === undefined) return { ok: true, payout, applied, durable };
    return { ok: true, payout, applied, durable, slotTaken: parsed.slot };
  }

  async markSending(
    id: string,
    claimId: string,
    options: DurableOption & { actor?: Actor } = {},
  ): Promise<MarkSendingResult> {
    const nowMs = this.#now();
    const ran = await this.#run(
      SCRIPTS["payout-mark-sending"],
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
      SCRIPTS["payout-update"],
      [this.#keys.payout(id), this.#keys.paymentIndex(checked.paymentId ?? "")],
      [id, flag(checked.paymentId !== undefined), ...fields],
    );
    const hash = PairsOrNullSchema.parse(reply);
    return hash === null ? null : this.#decode(id, pairsToRecord(hash));
  }

  /** One round trip: the index and the record it names are read in one script. */
  async settledTotals(days: readonly string[], userId?: number): Promise<DayTotals[]> {
    return readDayTotals(this.#redis, this.#keys, days, userId);
  }

  async findByPaymentId(paymentId: string): Promise<Payout | null> {
    const found = await readByPaymentId(this.#redis, this.#keys, paymentId);
    const payout = found && this.#decode(found.id, found.hash);
    return payout?.paymentId === paymentId ? payout : null;
  }

  async listByPhone(
    phone: string,
    page: { sinceMs: number; offset: number; limit: number },
  ): Promise<Payout[]> {
    if (page.limit <= 0) return [];
    const flat = ByPhoneReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["payouts-by-phone"],
        [this.#keys.phonePayouts(phone)],
        [page.sinceMs, page.offset, page.limit, this.#keys.payout("")],
      ),
    );
    const payouts: Payout[] = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const id = flat[index];
      const fields = flat[index + 1];
      if (typeof id === "string" && Array.isArray(fields)) {
        payouts.push(this.#decode(id, pairsToRecord(fields)));
      }
    }
    return payouts;
  }

  async latestRepeat(query: RepeatQuery): Promise<Payout | null> {
    const found = await readLatestRepeat(this.#redis, this.#keys, query);
    return found && this.#decode(found.id, found.hash);
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

  async findByWords(query: WordQuery): Promise<WordMatches> {
    return this.#search.findByWords(query);
  }

  async listByStatus(options: StatusListOptions): Promise<{ items: Payout[]; total: number }> {
    return this.#search.listByStatus(options);
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

  async oldestInState(state: TrackedState, options: OldestInStateOptions) {
    const reply = await runScript(
      this.#redis,
      SCRIPTS["payouts-oldest-in-state"],
      [this.#keys.stateSet(state)],
      [
        JSON.stringify({
          payoutPrefix: this.#keys.payout(""),
          state: JSON.stringify(state),
          limit: String(options.limit),
          userId: options.userId === undefined ? "" : String(options.userId),
          leftBefore: options.leftBeforeMs === undefined ? "" : String(options.leftBeforeMs),
        }),
      ],
    );
    const [count, ...oldest] = OldestReplySchema.parse(reply);
    const items = await this.#stillIn(state, oldest);
    return { count, items: oldest.flatMap((id) => items.filter((payout) => payout.id === id)) };
  }

  async idsInState(state: TrackedState): Promise<string[]> {
    // May include an id whose record just moved on: callers re-read before acting.
    return this.#redis.smembers(this.#keys.stateSet(state));
  }

  async countInStates(): Promise<Map<TrackedState, number>> {
    const pipeline = this.#redis.pipeline();
    for (const state of TRACKED_STATES) pipeline.scard(this.#keys.stateSet(state));
    const replies = await pipeline.exec();
    const count = (index: number) => z.number().int().parse(replyAt(replies, index));
    return new Map(TRACKED_STATES.map((state, index) => [state, count(index)]));
  }

  /** HGETALL of each id in one round trip; ids whose record is gone come back in `missing`. */
  async #getMany(ids: readonly string[]): Promise<{ found: Payout[]; missing: string[] }> {
    if (ids.length === 0) return { found: [], missing: [] };
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.#keys.payout(id));
    const replies = await pipeline.exec();
    const found: Payout[] = [];
    const missing: string[] = [];
    ids.forEach((id, index) => {
      const hash = HashSchema.parse(replyAt(replies, index));
      if (Object.keys(hash).length === 0) missing.push(id);
      else found.push(this.#decode(id, hash));
    });
    return { found, missing };
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

/** A stored state (JSON), or null when it does not read as one (or the record is gone). */
function readState(json: string): PayoutState | null {
  const state = StateSchema.safeParse(parseJsonOrUndefined(json));
  return state.success ? state.data : null;
}
