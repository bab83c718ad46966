/**
 * The outbox on Redis: the due queue of notices (due-queue.ts) whose claim of the next
 * notice also reads, in the same script (lua/outbox-claim.lua), the payout a payer's
 * settled notice is about and whether its number is saved.
 */
import { z } from "zod";
import type { Keys } from "../keys.js";
import { decodePayout, pairsToRecord, SETTLED_NOTICE_PREFIX } from "../payout-codec.js";
import type { ClaimedNotice, Outbox } from "../types.js";
import type { RedisClient } from "./connection.js";
import { RedisDueQueue } from "./due-queue.js";
import { runScript, SCRIPTS } from "./scripts.js";

const ClaimReplySchema = z.union([
  z.tuple([]),
  z.tuple([z.string()]),
  z.tuple([z.string(), z.array(z.string()), z.union([z.literal(0), z.literal(1)])]),
]);

export class RedisOutbox extends RedisDueQueue implements Outbox {
  readonly #redis: RedisClient;
  readonly #keys: Keys;
  readonly #savedNumbers: string;

  /** `savedNumbers`: the address book's hash of numbers (redis/recipients.ts `phones`). */
  constructor(redis: RedisClient, keys: Keys, savedNumbers: string) {
    super(redis, keys.outbox(), "outbox");
    this.#redis = redis;
    this.#keys = keys;
    this.#savedNumbers = savedNumbers;
  }

  async claimNext(nowMs: number, leaseMs: number): Promise<ClaimedNotice | null> {
    const reply = ClaimReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["outbox-claim"],
        [this.#keys.outbox(), this.#savedNumbers],
        [nowMs, nowMs + leaseMs, SETTLED_NOTICE_PREFIX, this.#keys.payout("")],
      ),
    );
    if (reply.length === 0) return null;
    if (reply.length === 1) return { key: reply[0] };
    const [key, fields, saved] = reply;
    const payoutId = key.slice(SETTLED_NOTICE_PREFIX.length);
    if (fields.length === 0) return { key, payout: null };
    return { key, payout: decodePayout(payoutId, pairsToRecord(fields)), numberSaved: saved === 1 };
  }
}
