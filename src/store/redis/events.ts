/**
 * The signed events' queue on Redis. Events are read from the audit stream (their outbox:
 * every move is written there in the same atomic step as the move) and queued here, each
 * behind the earlier events of the same payout or batch, so that each one's events go out
 * in order while a receiver's trouble with one payout holds back no other.
 *
 * Keys (p = prefix, all under `p events:`):
 *   cursor          STRING the last audit entry turned into events (or looked at and skipped)
 *   event:{id}      HASH   body (JSON, as sent), chain, createdMs, attempts; 7 days at most
 *   chain:{subject} LIST   that payout's or batch's waiting event ids, oldest first; only the
 *                          first is in `due`
 *   due             ZSET   event id → when its next try is due (ms)
 *   waiting         ZSET   event id → when its change happened (the oldest waiting event)
 *   delivered       ZSET   event id → when delivered, the last 24 hours only
 *   counts          HASH   dropped → events given up on
 *   failures        LIST   the last 10 failed tries, JSON, newest first
 *   state           HASH   state (active | paused | disabled), sinceMs, byId
 * Everything is bounded: events leave when delivered or dropped (after 3 days of tries).
 * Each step that moves an event is one script (lua/event-*.lua), so an event is never lost
 * nor queued twice between two of its keys.
 */
import { z } from "zod";
import type { Keys } from "../keys.js";
import { parseJsonOrUndefined } from "../schemas.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

export const ENDPOINT_STATES = ["active", "paused", "disabled"] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/** An event to queue: `subject` orders it (a payout's or a batch's id). */
export interface EventDraft {
  id: string;
  subject: string;
  createdMs: number;
  body: string;
}

/** An event waiting, as read for a try. */
export interface QueuedEvent extends EventDraft {
  attempts: number;
}

/** One failed try, as /events shows it. */
export const EventFailureSchema = z.object({
  atMs: z.number().int(),
  eventId: z.string(),
  type: z.string(),
  attempt: z.number().int(),
  answer: z.string(),
});
export type EventFailure = z.infer<typeof EventFailureSchema>;

export interface EventsSummary {
  state: EndpointState;
  stateSinceMs: number | undefined;
  stateById: number | undefined;
  deliveredLastDay: number;
  waiting: number;
  /** When the change of the oldest waiting event happened. */
  oldestWaitingMs: number | undefined;
  dropped: number;
  failures: EventFailure[];
}

const DAY_MS = 86_400_000;
/** A safety net only: events are settled (delivered or dropped) long before. */
const EVENT_KEPT_MS = 7 * DAY_MS;
const FAILURES_KEPT = 10;

const QueuedSchema = z.object({
  body: z.string(),
  chain: z.string(),
  createdMs: z.coerce.number().int(),
  attempts: z.coerce.number().int().nonnegative(),
});

export class RedisEventsStore {
  readonly #redis: RedisClient;
  readonly #keys: Keys;

  constructor(redis: RedisClient, keys: Keys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  #key(part: string): string {
    return this.#keys.events(part);
  }

  /** The last audit entry looked at, or undefined before the first round. */
  async cursor(): Promise<string | undefined> {
    return (await this.#redis.get(this.#key("cursor"))) ?? undefined;
  }

  /** Sets the cursor if none is set (the first start: events begin with what happens next). */
  async startCursorAt(entryId: string): Promise<void> {
    await this.#redis.set(this.#key("cursor"), entryId, "NX");
  }

  /**
   * Queues `events` and moves the cursor from `expected` to `next`, in one step; false
   * when the cursor was not `expected` (nothing queued). Events already waiting stay as
   * they are.
   */
  async advance(
    expected: string,
    next: string,
    events: readonly EventDraft[],
    nowMs: number,
  ): Promise<boolean> {
    return (await this.#enqueue(expected, next, events, nowMs)) >= 0;
  }

  /** Queues `events` again (a replay: the same ids); answers how many were queued. */
  async requeue(events: readonly EventDraft[], nowMs: number): Promise<number> {
    return this.#enqueue("*", "", events, nowMs);
  }

  async #enqueue(
    expected: string,
    next: string,
    events: readonly EventDraft[],
    nowMs: number,
  ): Promise<number> {
    const args: Array<string | number> = [expected, next, nowMs, EVENT_KEPT_MS, this.#key("")];
    for (const event of events) args.push(event.id, event.subject, event.createdMs, event.body);
    const keys = [this.#key("cursor"), this.#key("due"), this.#key("waiting")];
    return z
      .number()
      .int()
      .parse(await runScript(this.#redis, SCRIPTS["event-enqueue"], keys, args));
  }

  /** Up to `limit` events due by `nowMs` (each the first waiting of its payout or batch). */
  async due(nowMs: number, limit: number): Promise<QueuedEvent[]> {
    const ids = await this.#redis.zrangebyscore(this.#key("due"), "-inf", nowMs, "LIMIT", 0, limit);
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.#key(`event:${id}`));
    const replies = (await pipeline.exec()) ?? [];
    const events: QueuedEvent[] = [];
    for (const [index, id] of ids.entries()) {
      const parsed = QueuedSchema.safeParse(replies[index]?.[1]);
      if (parsed.success) {
        const { body, chain, createdMs, attempts } = parsed.data;
        events.push({ id, subject: chain, createdMs, body, attempts });
      } else {
        // Gone (or unreadable): it leaves the queue, and its followers move up.
        await this.settle(id, "dropped", nowMs);
      }
    }
    return events;
  }

  /** The event leaves the queue (delivered, or given up on) and the next of its kin is due. */
  async settle(
    id: string,
    outcome: "delivered" | "dropped",
    nowMs: number,
    failure?: EventFailure,
  ): Promise<void> {
    const keys = ["due", "waiting", "delivered", "counts", "failures"].map((part) =>
      this.#key(part),
    );
    const options = {
      id,
      nowMs: String(nowMs),
      prefix: this.#key(""),
      outcome,
      dayMs: String(DAY_MS),
      failuresKept: String(FAILURES_KEPT),
    };
    const args = [JSON.stringify(options), failure ? JSON.stringify(failure) : ""];
    await runScript(this.#redis, SCRIPTS["event-settle"], keys, args);
  }

  /** A failed try: counted, noted, and the next one due at `dueMs`. */
  async retry(id: string, dueMs: number, failure: EventFailure): Promise<void> {
    const keys = [this.#key("due"), this.#key("failures")];
    const args = [id, dueMs, this.#key(""), JSON.stringify(failure), FAILURES_KEPT];
    await runScript(this.#redis, SCRIPTS["event-retry"], keys, args);
  }

  /** 410 Gone: the endpoint is disabled and `notice` queued for the admins, in one step. */
  async disable(nowMs: number, notice: string, failure: EventFailure): Promise<boolean> {
    const keys = [this.#key("state"), this.#keys.outbox(), this.#key("failures")];
    const args = [nowMs, notice, JSON.stringify(failure), FAILURES_KEPT];
    return (await runScript(this.#redis, SCRIPTS["event-endpoint-disable"], keys, args)) === 1;
  }

  /** Paused or active again (by an admin); the previous state. */
  async setState(state: EndpointState, nowMs: number, byId: number): Promise<EndpointState> {
    const key = this.#key("state");
    const [[, previous]] = z
      .tuple([z.tuple([z.null(), z.string().nullable()])])
      .rest(z.unknown())
      .parse(
        await this.#redis
          .multi()
          .hget(key, "state")
          .hset(key, "state", state, "sinceMs", nowMs, "byId", byId)
          .exec(),
      );
    return readState(previous);
  }

  async state(): Promise<EndpointState> {
    return readState(await this.#redis.hget(this.#key("state"), "state"));
  }

  /** What /events shows. */
  async summary(nowMs: number): Promise<EventsSummary> {
    const [state, delivered, waiting, oldest, dropped, failures] = z
      .array(z.tuple([z.null(), z.unknown()]))
      .parse(
        await this.#redis
          .multi()
          .hgetall(this.#key("state"))
          .zcount(this.#key("delivered"), nowMs - DAY_MS, "+inf")
          .zcard(this.#key("waiting"))
          .zrange(this.#key("waiting"), 0, 0, "WITHSCORES")
          .hget(this.#key("counts"), "dropped")
          .lrange(this.#key("failures"), 0, 4)
          .exec(),
      )
      .map(([, reply]) => reply);
    const stateHash = z.record(z.string(), z.string()).parse(state);
    const oldestPair = z.array(z.string()).parse(oldest);
    const since = Number(stateHash.sinceMs);
    const by = Number(stateHash.byId);
    return {
      state: readState(stateHash.state ?? null),
      stateSinceMs: Number.isFinite(since) && stateHash.sinceMs ? since : undefined,
      stateById: Number.isFinite(by) && stateHash.byId ? by : undefined,
      deliveredLastDay: z.number().parse(delivered),
      waiting: z.number().parse(waiting),
      oldestWaitingMs: oldestPair[1] === undefined ? undefined : Number(oldestPair[1]),
      dropped: Number(z.string().nullable().parse(dropped) ?? 0),
      failures: z
        .array(z.string())
        .parse(failures)
        .flatMap((text) => {
          const parsed = EventFailureSchema.safeParse(parseJsonOrUndefined(text));
          return parsed.success ? [parsed.data] : [];
        }),
    };
  }
}

function readState(value: string | null): EndpointState {
  const parsed = z.enum(ENDPOINT_STATES).safeParse(value);
  return parsed.success ? parsed.data : "active";
}
