/**
 * The outbox on Redis: the due queue of notices (due-queue.ts) whose claim of the next
 * notice also reads, in the same script (lua/outbox-claim.lua), the payout a payer's
 * settled notice is about.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Keys } from "../keys.js";
import { decodePayout, pairsToRecord, SETTLED_NOTICE_PREFIX } from "../payout-codec.js";
import type { ClaimedNotice, Outbox } from "../types.js";
import { RedisDueQueue } from "./due-queue.js";
import { runScript, SCRIPTS } from "./scripts.js";

const ClaimReplySchema = z.union([
  z.tuple([]),
  z.tuple([z.string()]),
  z.tuple([z.string(), z.array(z.string())]),
]);

export class RedisOutbox extends RedisDueQueue implements Outbox {
  readonly #redis: Redis;
  readonly #keys: Keys;

  constructor(redis: Redis, keys: Keys) {
    super(redis, keys.outbox());
    this.#redis = redis;
    this.#keys = keys;
  }

  async claimNext(nowMs: number, leaseMs: number): Promise<ClaimedNotice | null> {
    const reply = ClaimReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["outbox-claim"],
        [this.#keys.outbox()],
        [nowMs, nowMs + leaseMs, SETTLED_NOTICE_PREFIX, this.#keys.payout("")],
      ),
    );
    if (reply.length === 0) return null;
    if (reply.length === 1) return { key: reply[0] };
    const [key, fields] = reply;
    const payoutId = key.slice(SETTLED_NOTICE_PREFIX.length);
    const payout = fields.length === 0 ? null : decodePayout(payoutId, pairsToRecord(fields));
    return { key, payout };
  }
}
