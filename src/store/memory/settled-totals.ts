/**
 * The days' settled totals in memory (model/totals.ts), as the Redis scripts keep them
 * (lua/includes/totals.lua): counted once per payout, by the payout store inside the
 * creation or move that reaches a counted final state, kept for `keptMs` after their last
 * count on the injected clock.
 */
import type { Payout } from "../../model/payout.js";
import { addTotals, type DayTotals, totalsOf } from "../../model/totals.js";
import { dayOf } from "../../time.js";

export class MemorySettledTotals {
  readonly #totals = new Map<string, { sums: DayTotals; expiresAtMs: number }>();
  readonly #counted = new Set<string>();
  readonly #now: () => number;
  readonly #timeZone: string;
  readonly #keptMs: number;

  constructor(options: { now: () => number; timeZone: string; keptMs: number }) {
    this.#now = options.now;
    this.#timeZone = options.timeZone;
    this.#keptMs = options.keptMs;
  }

  /** Counts `payout` (in a counted state) on the day of `atMs`, unless it was counted. */
  count(payout: Payout, atMs: number): void {
    if (this.#counted.has(payout.id)) return;
    this.#counted.add(payout.id);
    const day = dayOf(atMs, this.#timeZone);
    const adds = totalsOf(payout);
    const expiresAtMs = this.#now() + this.#keptMs;
    for (const key of [day, `${day}:user:${payout.initiatorId}`]) {
      this.#totals.set(key, { sums: addTotals(this.#read(key), adds), expiresAtMs });
    }
  }

  /** Each day's totals (everyone's, or `userId`'s), in the order of `days`. */
  read(days: readonly string[], userId?: number): DayTotals[] {
    return days.map((day) => ({
      ...this.#read(userId === undefined ? day : `${day}:user:${userId}`),
    }));
  }

  #read(key: string): DayTotals {
    const entry = this.#totals.get(key);
    if (entry === undefined) return {};
    if (entry.expiresAtMs <= this.#now()) {
      this.#totals.delete(key);
      return {};
    }
    return entry.sums;
  }
}
