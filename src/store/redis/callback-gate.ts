/**
 * A payment callback's admission on Redis, in one script (lua/callback-admit.lua): the
 * payout found by its payment id, the re-read's spacing counted and its lease taken, in one
 * round trip where they were three.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Keys } from "../keys.js";
import { decodePayout, pairsToRecord } from "../payout-codec.js";
import { type CallbackAdmission, type CallbackGate, callbackRereadName } from "../types.js";
import { runScript, SCRIPTS } from "./scripts.js";

const ReplySchema = z.union([
  z.tuple([]),
  z.tuple([
    z.enum(["not_pending", "spaced", "leased", "admitted"]),
    z.string(),
    z.array(z.string()),
  ]),
]);

export class RedisCallbackGate implements CallbackGate {
  readonly #redis: Redis;
  readonly #keys: Keys;

  constructor(redis: Redis, keys: Keys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async admit(
    paymentId: string,
    options: { owner: string; spacingMs: number; leaseMs: number },
  ): Promise<CallbackAdmission> {
    const k = this.#keys;
    const reply = ReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["callback-admit"],
        [k.paymentIndex(paymentId)],
        [
          JSON.stringify(paymentId),
          k.payout(""),
          k.throttle(callbackRereadName("")),
          k.lease(callbackRereadName("")),
          options.spacingMs,
          options.owner,
          options.leaseMs,
        ],
      ),
    );
    if (reply.length === 0) return { outcome: "unknown" };
    const [outcome, id, fields] = reply;
    return { outcome, payout: decodePayout(id, pairsToRecord(fields)) };
  }
}
