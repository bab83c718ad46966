/**
 * The bot's update queue and getUpdates long polling, with Telegram's rules: updates stay
 * queued until a later call's `offset` acknowledges them, a poll answers as soon as
 * something is queued, and only one poll may wait at a time (a newer one ends the older
 * with 409).
 */
import type { Update } from "telegraf/types";
import { BotApiError } from "./types.js";

/** Telegram leaves these out unless `allowed_updates` names them. */
const OPT_IN_TYPES: ReadonlySet<string> = new Set([
  "chat_member",
  "message_reaction",
  "message_reaction_count",
]);

/** Telegram's own limit on `limit`. */
const MAX_LIMIT = 100;

export interface PollRequest {
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
  readonly timeout?: number | undefined;
  readonly allowed_updates?: readonly string[] | undefined;
}

interface Waiter {
  readonly limit: number;
  readonly settle: (outcome: Update[] | BotApiError) => void;
}

function updateType(update: Update): string {
  return Object.keys(update).find((key) => key !== "update_id") ?? "";
}

export class UpdateQueue {
  #pending: Update[] = [];
  #nextUpdateId = 1;
  #allowed: ReadonlySet<string> | undefined;
  #waiter: Waiter | undefined;
  readonly #maxPollWaitMs: number;
  readonly #onPush: () => void;

  /** `onPush` runs after every new update (the webhook deliverer listens there). */
  constructor(maxPollWaitMs: number, onPush: () => void) {
    this.#maxPollWaitMs = maxPollWaitMs;
    this.#onPush = onPush;
  }

  /** Queues the update `build` makes with the next update id; returns that id. */
  push(build: (updateId: number) => Update): number {
    const updateId = this.#nextUpdateId;
    this.#nextUpdateId += 1;
    this.#pending.push(build(updateId));
    const waiter = this.#waiter;
    if (waiter) {
      const ready = this.#take(waiter.limit);
      if (ready.length > 0) waiter.settle(ready);
    }
    this.#onPush();
    return updateId;
  }

  /** Updates not yet acknowledged (or delivered, in webhook mode). */
  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Every deliverable update, oldest first. */
  deliverable(): readonly Update[] {
    return this.#take(this.#pending.length);
  }

  remove(updateId: number): void {
    this.#pending = this.#pending.filter((update) => update.update_id !== updateId);
  }

  dropPending(): void {
    this.#pending = [];
  }

  /** `undefined` keeps the current setting; an empty list restores Telegram's default. */
  setAllowedUpdates(types: readonly string[] | undefined): void {
    if (types === undefined) return;
    this.#allowed = types.length === 0 ? undefined : new Set(types);
  }

  get allowedUpdates(): readonly string[] | undefined {
    return this.#allowed ? [...this.#allowed] : undefined;
  }

  /**
   * One getUpdates call. Resolves with up to `limit` updates as soon as there are any,
   * else after `timeout` seconds (capped at the emulator's maximum) with []. A newer call
   * ends a waiting one with 409; `signal` (the client went away) drops this one silently.
   */
  poll(request: PollRequest, signal: AbortSignal): Promise<Update[]> {
    this.setAllowedUpdates(request.allowed_updates);
    this.#acknowledge(request.offset ?? 0);
    this.endWaitingPoll(
      new BotApiError(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      ),
    );
    const limit = Math.min(Math.max(request.limit ?? MAX_LIMIT, 1), MAX_LIMIT);
    const ready = this.#take(limit);
    const waitMs = Math.min(Math.max(request.timeout ?? 0, 0) * 1000, this.#maxPollWaitMs);
    if (ready.length > 0 || waitMs <= 0 || signal.aborted) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const settle = (outcome: Update[] | BotApiError) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (this.#waiter === waiter) this.#waiter = undefined;
        if (outcome instanceof BotApiError) reject(outcome);
        else resolve(outcome);
      };
      const waiter: Waiter = { limit, settle };
      const timer = setTimeout(() => settle([]), waitMs);
      const onAbort = () => settle([]);
      signal.addEventListener("abort", onAbort);
      this.#waiter = waiter;
    });
  }

  /** Answers a waiting poll now: with [] (shutdown, webhook set) or with `error`. */
  endWaitingPoll(error?: BotApiError): void {
    this.#waiter?.settle(error ?? []);
  }

  /** A positive offset confirms every update below it; a negative one keeps the last -offset. */
  #acknowledge(offset: number): void {
    if (offset > 0) {
      this.#pending = this.#pending.filter((update) => update.update_id >= offset);
    } else if (offset < 0) {
      this.#pending = this.#pending.slice(offset);
    }
  }

  /** Drops updates of types the bot did not ask for (Telegram never sends them), then reads. */
  #take(limit: number): Update[] {
    this.#pending = this.#pending.filter((update) => this.#isAllowed(updateType(update)));
    return this.#pending.slice(0, limit);
  }

  #isAllowed(type: string): boolean {
    return this.#allowed ? this.#allowed.has(type) : !OPT_IN_TYPES.has(type);
  }
}
