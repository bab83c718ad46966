/**
 * A payment callback's admission on Redis, in one script (lua/callback-admit.lua): the
 * payout found by its payment id, the re-read's spacing counted, the re-reads' cap, its
 * lease taken and its request's rate-limit slot, in one round trip where they were five.
 */
import { z } from "zod";
import type { Keys } from "../keys.js";
import { decodePayout, pairsToRecord } from "../payout-codec.js";
import {
  type CallbackAdmission,
  type CallbackAdmitOptions,
  type CallbackGate,
  callbackRereadName,
} from "../types.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

const ReplySchema = z.union([
  z.tuple([]),
  z.tuple([
    z.enum(["not_pending", "spaced", "leased", "over_cap"]),
    z.string(),
    z.array(z.string()),
  ]),
  z.tuple([z.literal("admitted"), z.string(), z.array(z.string()), z.number().int()]),
]);

export class RedisCallbackGate implements CallbackGate {
  readonly #redis: RedisClient;
  readonly #keys: Keys;

  constructor(redis: RedisClient, keys: Keys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async admit(paymentId: string, options: CallbackAdmitOptions): Promise<CallbackAdmission> {
    const k = this.#keys;
    const { cap, request } = options;
    const reply = ReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["callback-admit"],
        // A limit not asked for is not read; its key is still one of the merchant's (the
        // index again): on a cluster every key given must be in the merchant's slot.
        [
          k.paymentIndex(paymentId),
          cap?.key ?? k.paymentIndex(paymentId),
          request?.key ?? k.paymentIndex(paymentId),
        ],
        [
          JSON.stringify(paymentId),
          k.payout(""),
          k.throttle(callbackRereadName("")),
          k.lease(callbackRereadName("")),
          options.spacingMs,
          options.owner,
          options.leaseMs,
          cap?.limit ?? "",
          cap?.windowMs ?? "",
          `${options.owner}:reread`,
          request?.limit ?? "",
          request?.windowMs ?? "",
          request?.backgroundLimit ?? "",
        ],
      ),
    );
    if (reply.length === 0) return { outcome: "unknown" };
    const payout = decodePayout(reply[1], pairsToRecord(reply[2]));
    if (reply[0] !== "admitted") return { outcome: reply[0], payout };
    const slot = reply[3];
    return slot < 0
      ? { outcome: "admitted", payout }
      : { outcome: "admitted", payout, requestSlot: slot === 1 };
  }
}
