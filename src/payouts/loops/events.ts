/**
 * The signed events' loop (Standard Webhooks) and the admins' steps on it (/events).
 *
 * The audit stream is the events' outbox. Every move of a payout or a batch is appended to
 * it in the same atomic Redis step as the move (store/audit-lua.ts), so there is no change
 * without its entry and no entry without its change. Each round, on the one replica that
 * holds the lease:
 *   1. the entries after the cursor that the business hears of become events, queued with
 *      the cursor's move in one step (a replica that lost the lease cannot queue twice);
 *   2. the events due are sent, each the first waiting of its payout or batch (so a payout's
 *      events arrive in order, and a receiver's trouble with one holds back no other).
 * A 2xx within 10 s is delivered; a failure is tried again after 5 s, doubling up to an
 * hour, with jitter, for 3 days, then dropped, logged and counted; 410 Gone disables the
 * endpoint and tells the admins (through the outbox). The chat never waits on any of it.
 */

import { type Logger, redactUrlCredentials } from "../../logger.js";
import type { Metrics } from "../../metrics/metrics.js";
import { type Actor, actorFields } from "../../model/audit.js";
import { retryDelayMs } from "../../model/events.js";
import { noticeKey } from "../../model/notice.js";
import type {
  EndpointState,
  EventsSummary,
  QueuedEvent,
  RedisEventsStore,
} from "../../store/redis/events.js";
import type { Stores } from "../../store/types.js";
import { eventDrafts } from "./event-drafts.js";
import { BackgroundRunner } from "./runner.js";

/** How events reach the receiver (src/events/sender.ts). */
export interface EventSending {
  readonly url: string;
  send(
    eventId: string,
    body: string,
    nowMs: number,
  ): Promise<
    | { outcome: "delivered"; statusCode: number }
    | { outcome: "gone" | "failed"; statusCode: number | null; answer: string }
  >;
}

/** The queue's store (store/redis/events.ts). */
export type EventQueue = Pick<
  RedisEventsStore,
  | "cursor"
  | "startCursorAt"
  | "advance"
  | "requeue"
  | "due"
  | "settle"
  | "retry"
  | "disable"
  | "setState"
  | "state"
  | "summary"
>;

export interface EventRetryPolicy {
  /** First pause after a failed try. Default 5 s. */
  firstMs: number;
  /** Longest pause between tries. Default 1 hour. */
  maxMs: number;
  /** Tries stop this long after the change; the event is dropped. Default 3 days. */
  giveUpAfterMs: number;
}

export const DEFAULT_EVENT_RETRY: EventRetryPolicy = {
  firstMs: 5_000,
  maxMs: 3_600_000,
  giveUpAfterMs: 3 * 86_400_000,
};

export interface EventDispatchOptions {
  /** Each round's lag and failures (loops' runner). Default: none. */
  metrics?: Metrics;
  queue: EventQueue;
  sender: EventSending;
  stores: Pick<Stores, "audit" | "payouts" | "batches" | "leases">;
  logger: Logger;
  now: () => number;
  retry?: EventRetryPolicy;
  /** Pause between rounds. Default 250 ms. */
  tickMs?: number;
  /** Audit entries read per round, and events tried at once. Default 200 and 64. */
  readLimit?: number;
  sendLimit?: number;
  /** Called when a notice was queued (the 410 alert), to deliver it at once. */
  onNoticeQueued?: () => void;
  /** The lease's owner name (default: random per process). */
  owner?: string;
}

/** Audit entries looked at by one replay, at most (a replay is for hours or days, not years). */
export const REPLAY_MAX_ENTRIES = 50_000;

export type ReplayResult =
  | { outcome: "replayed"; queued: number; found: number; truncated: boolean }
  | { outcome: "bad_period" };

export class EventDispatch {
  readonly #options: EventDispatchOptions & { retry: EventRetryPolicy };
  readonly #runner: BackgroundRunner;
  readonly #log: Logger;

  constructor(options: EventDispatchOptions) {
    this.#options = { retry: DEFAULT_EVENT_RETRY, ...options };
    this.#log = options.logger.child({ loop: "events" });
    const tickMs = options.tickMs ?? 250;
    this.#runner = new BackgroundRunner({
      metrics: options.metrics,
      name: "events round",
      logger: this.#log,
      tickMs,
      round: () => this.round(),
      lease: {
        store: options.stores.leases,
        name: "events",
        // Outlives a round that waits on a silent receiver (10 s) a few times over.
        ttlMs: 45_000,
        ...(options.owner ? { owner: options.owner } : {}),
      },
    });
  }

  get url(): string {
    return this.#options.sender.url;
  }

  start(): void {
    this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  wake(): void {
    this.#runner.wake();
  }

  /** One round: new audit entries become events, then the due events are tried. */
  async round(): Promise<{ queued: number; tried: number }> {
    const queued = await this.#ingest();
    const state = await this.#options.queue.state();
    const tried = state === "active" ? await this.#deliverDue() : 0;
    return { queued, tried };
  }

  /** What /events shows: the endpoint (never the secret) and the queue. */
  async summary(): Promise<EventsSummary & { url: string }> {
    return { ...(await this.#options.queue.summary(this.#options.now())), url: this.url };
  }

  /** `/events pause` or `resume`, audited; the state before. */
  async setState(state: "paused" | "active", admin: Actor): Promise<EndpointState> {
    const { queue, stores, now } = this.#options;
    const previous = await queue.setState(state, now(), admin.id);
    await stores.audit.record({
      atMs: now(),
      ...actorFields(admin),
      action: state === "paused" ? "events_paused" : "events_resumed",
      details: { from: previous },
    });
    if (state === "active") this.wake();
    return previous;
  }

  /**
   * `/events replay`: the events of the changes from `fromMs` to `toMs` queued again, with
   * the ids they had (receivers de-duplicate by `webhook-id`); audited.
   */
  async replay(fromMs: number, toMs: number, admin: Actor): Promise<ReplayResult> {
    if (!(fromMs <= toMs)) return { outcome: "bad_period" };
    const { queue, stores, now } = this.#options;
    let after: string | undefined;
    let found = 0;
    let queued = 0;
    let seen = 0;
    for (;;) {
      const page = await stores.audit.range({
        fromMs,
        toMs,
        limit: 500,
        ...(after ? { after } : {}),
      });
      const drafts = await eventDrafts(page.entries, this.#options.stores, this.#log);
      found += drafts.length;
      queued += drafts.length > 0 ? await queue.requeue(drafts, now()) : 0;
      seen += page.entries.length;
      if (!page.next || seen >= REPLAY_MAX_ENTRIES) {
        const truncated = page.next !== undefined;
        await stores.audit.record({
          atMs: now(),
          ...actorFields(admin),
          action: "events_replayed",
          details: {
            from: new Date(fromMs).toISOString(),
            to: new Date(toMs).toISOString(),
            events: found,
            queued,
          },
        });
        this.wake();
        return { outcome: "replayed", queued, found, truncated };
      }
      after = page.next;
    }
  }

  /** The audit entries after the cursor, as events, queued with the cursor's move. */
  async #ingest(): Promise<number> {
    const { queue, stores, now } = this.#options;
    let cursor = await queue.cursor();
    if (cursor === undefined) {
      // The first round ever: events begin with what happens from now on.
      const [newest] = await stores.audit.recent(1);
      await queue.startCursorAt(newest?.id ?? "0-0");
      cursor = await queue.cursor();
      if (cursor === undefined) return 0;
    }
    const page = await stores.audit.range({
      fromMs: 0,
      toMs: Number.MAX_SAFE_INTEGER,
      limit: this.#options.readLimit ?? 200,
      after: cursor,
    });
    const last = page.next ?? page.entries.at(-1)?.id;
    if (last === undefined) return 0;
    const drafts = await eventDrafts(page.entries, this.#options.stores, this.#log);
    const moved = await queue.advance(cursor, last, drafts, now());
    if (page.next) this.wake();
    return moved ? drafts.length : 0;
  }

  async #deliverDue(): Promise<number> {
    const { queue, now } = this.#options;
    const due = await queue.due(now(), this.#options.sendLimit ?? 64);
    await Promise.all(due.map((event) => this.#deliver(event)));
    if (due.length > 0) this.wake();
    return due.length;
  }

  async #deliver(event: QueuedEvent): Promise<void> {
    const { queue, sender, now, retry } = this.#options;
    const result = await sender.send(event.id, event.body, now());
    const type = typeOf(event.body);
    const log = { eventId: event.id, type, attempt: event.attempts + 1 };
    if (result.outcome === "delivered") {
      await queue.settle(event.id, "delivered", now());
      this.#log.debug({ ...log, statusCode: result.statusCode }, "event delivered");
      return;
    }
    const failure = {
      atMs: now(),
      eventId: event.id,
      type,
      attempt: event.attempts + 1,
      answer: result.answer,
    };
    if (result.outcome === "gone") {
      const notice = noticeKey({ kind: "events_disabled", atMs: failure.atMs });
      if (await queue.disable(failure.atMs, notice, failure)) {
        const url = redactUrlCredentials(sender.url);
        this.#log.warn({ ...log, url }, "events endpoint answered 410 Gone; disabled");
        await this.#options.stores.audit.record({
          atMs: failure.atMs,
          actorId: 0,
          actorRole: "system",
          action: "events_disabled",
          details: { statusCode: 410 },
        });
        this.#options.onNoticeQueued?.();
      }
      return;
    }
    const nextMs = failure.atMs + retryDelayMs(event.attempts + 1, retry);
    if (nextMs - event.createdMs > retry.giveUpAfterMs) {
      await queue.settle(event.id, "dropped", failure.atMs, failure);
      this.#log.error({ ...log, answer: result.answer }, "event dropped after 3 days of tries");
      return;
    }
    await queue.retry(event.id, nextMs, failure);
    this.#log.info(
      { ...log, answer: result.answer, nextMs },
      "event try failed; tried again later",
    );
  }
}

function typeOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null && "type" in parsed) {
      return String(parsed.type);
    }
  } catch {
    // an unreadable body is still sent as it was queued
  }
  return "unknown";
}
