/**
 * The payout a payment id is indexed to, read with the index in one script
 * (lua/payout-by-payment.lua): a payment callback's first look-up in one round trip.
 */
import { z } from "zod";
import type { Keys } from "../keys.js";
import { pairsToRecord } from "../payout-codec.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** The script's reply: nothing, or the payout's id and its fields. */
const ReplySchema = z.union([z.tuple([]), z.tuple([z.string(), z.array(z.string())])]);

/** The id and the stored fields of the payout `paymentId` is indexed to, or null. */
export async function readByPaymentId(
  redis: RedisClient,
  keys: Keys,
  paymentId: string,
): Promise<{ id: string; hash: Record<string, string> } | null> {
  const reply = ReplySchema.parse(
    await runScript(
      redis,
      SCRIPTS["payout-by-payment"],
      [keys.paymentIndex(paymentId)],
      [keys.payout("")],
    ),
  );
  if (reply.length === 0) return null;
  const [id, fields] = reply;
  return { id, hash: pairsToRecord(fields) };
}
