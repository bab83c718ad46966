/**
 * The approval cards sent about each payout: a set per payout (`p cards:{payoutId}`,
 * members `chatId:messageId`) to edit them all once it is decided, and one key per card
 * (`p card:{chatId}:{messageId}`) to find the payout an approver's reply is about. Both
 * expire: a card is only worth editing while its payout is recent.
 */
import type { Keys } from "../keys.js";
import type { ApprovalCard, ApprovalCardStore } from "../types.js";
import type { RedisClient } from "./connection.js";

/** `chatId:messageId` (ids may be negative: group chats) → the card, or null. */
function parseMember(member: string): ApprovalCard | null {
  const match = /^(-?\d{1,20}):(\d{1,15})$/.exec(member);
  if (!match) return null;
  return { chatId: Number(match[1]), messageId: Number(match[2]) };
}

export class RedisApprovalCards implements ApprovalCardStore {
  readonly #redis: RedisClient;
  readonly #keys: Keys;
  readonly #ttlMs: number;

  constructor(redis: RedisClient, keys: Keys, ttlMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#ttlMs = ttlMs;
  }

  async add(payoutId: string, card: ApprovalCard): Promise<void> {
    const ttlMs = this.#ttlMs;
    const set = this.#keys.approvalCards(payoutId);
    await this.#redis
      .multi()
      .sadd(set, `${card.chatId}:${card.messageId}`)
      .pexpire(set, ttlMs)
      .set(this.#keys.approvalCard(card.chatId, card.messageId), payoutId, "PX", ttlMs)
      .exec();
  }

  async list(payoutId: string): Promise<ApprovalCard[]> {
    const members = await this.#redis.smembers(this.#keys.approvalCards(payoutId));
    return members
      .map(parseMember)
      .filter((card): card is ApprovalCard => card !== null)
      .sort((a, b) => a.chatId - b.chatId || a.messageId - b.messageId);
  }

  async payoutOf(card: ApprovalCard): Promise<string | null> {
    return this.#redis.get(this.#keys.approvalCard(card.chatId, card.messageId));
  }
}
