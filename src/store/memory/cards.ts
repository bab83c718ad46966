/**
 * The approval cards in process memory, for the demo without Redis, with the Redis store's
 * semantics (the contract tests hold both to them), expiring on the injected clock.
 */
import type { ApprovalCard, ApprovalCardStore } from "../types.js";

export class MemoryApprovalCards implements ApprovalCardStore {
  readonly #cards = new Map<string, { cards: ApprovalCard[]; expiresAtMs: number }>();
  readonly #payoutOf = new Map<string, { payoutId: string; expiresAtMs: number }>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(now: () => number, ttlMs: number) {
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  async add(payoutId: string, card: ApprovalCard): Promise<void> {
    const expiresAtMs = this.#now() + this.#ttlMs;
    // No await before the write: two adds at once must not lose one of the cards.
    const known = this.#live(payoutId).filter(
      (other) => other.chatId !== card.chatId || other.messageId !== card.messageId,
    );
    this.#cards.set(payoutId, { cards: [...known, { ...card }], expiresAtMs });
    this.#payoutOf.set(`${card.chatId}:${card.messageId}`, { payoutId, expiresAtMs });
  }

  async list(payoutId: string): Promise<ApprovalCard[]> {
    return this.#live(payoutId)
      .map((card) => ({ ...card }))
      .sort((a, b) => a.chatId - b.chatId || a.messageId - b.messageId);
  }

  #live(payoutId: string): ApprovalCard[] {
    const entry = this.#cards.get(payoutId);
    return entry && entry.expiresAtMs > this.#now() ? entry.cards : [];
  }

  async payoutOf(card: ApprovalCard): Promise<string | null> {
    const entry = this.#payoutOf.get(`${card.chatId}:${card.messageId}`);
    return entry && entry.expiresAtMs > this.#now() ? entry.payoutId : null;
  }
}
