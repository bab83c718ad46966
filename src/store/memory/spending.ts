/**
 * The days' spending in process memory, for the demo without Redis, with the Redis
 * ledger's semantics (the contract tests hold both to them). The payout store reserves and
 * gives back synchronously, inside its own atomic step.
 */
import type { DayUsage, SpendingLedger } from "../types.js";

/** How long a day's counts are kept after its last reservation (as SPENDING_KEPT_MS). */
const KEPT_MS = 3 * 86_400_000;

interface Day {
  merchantXaf: number;
  byUser: Map<number, number>;
  expiresAtMs: number;
}

export class MemorySpendingLedger implements SpendingLedger {
  readonly #days = new Map<string, Day>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * Which cap `amount` would pass on `day` for `userId` (and what that one used), or null
   * when it fits; checks only, like the script's `overLimit`.
   */
  overLimit(
    day: string,
    userId: number,
    amount: number,
    caps: { payerCapXaf: number | null; merchantCapXaf: number | null },
  ): { limit: "payer" | "merchant"; usedXaf: number } | null {
    const kept = this.#live(day);
    const payerUsed = kept?.byUser.get(userId) ?? 0;
    if (caps.payerCapXaf !== null && payerUsed + amount > caps.payerCapXaf) {
      return { limit: "payer", usedXaf: payerUsed };
    }
    const merchantUsed = kept?.merchantXaf ?? 0;
    if (caps.merchantCapXaf !== null && merchantUsed + amount > caps.merchantCapXaf) {
      return { limit: "merchant", usedXaf: merchantUsed };
    }
    return null;
  }

  /** Counts `amount` for `userId` and everyone on `day`, and keeps the day a while more. */
  spend(day: string, userId: number, amount: number): void {
    const kept = this.#live(day) ?? { merchantXaf: 0, byUser: new Map(), expiresAtMs: 0 };
    kept.merchantXaf += amount;
    kept.byUser.set(userId, (kept.byUser.get(userId) ?? 0) + amount);
    kept.expiresAtMs = this.#now() + KEPT_MS;
    this.#days.set(day, kept);
  }

  /** Takes `amount` off `day` again, if the day is still kept. */
  giveBack(day: string, userId: number, amount: number): void {
    const kept = this.#live(day);
    if (!kept) return;
    kept.merchantXaf -= amount;
    kept.byUser.set(userId, (kept.byUser.get(userId) ?? 0) - amount);
  }

  async usage(day: string): Promise<DayUsage> {
    const kept = this.#live(day);
    const byUser = new Map([...(kept?.byUser ?? [])].filter(([, xaf]) => xaf > 0));
    return { merchantXaf: Math.max(0, kept?.merchantXaf ?? 0), byUser };
  }

  #live(day: string): Day | undefined {
    const kept = this.#days.get(day);
    if (kept && kept.expiresAtMs <= this.#now()) {
      this.#days.delete(day);
      return undefined;
    }
    return kept;
  }
}
