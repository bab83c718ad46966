/**
 * The duplicate rule's look-up (PayoutStore.latestRepeat) in one script
 * (lua/payout-latest-repeat.lua): the payouts to the number are compared in Redis and only
 * the one found comes back, so a number paid often costs one round trip and one record.
 */
import { z } from "zod";
import type { Keys } from "../keys.js";
import { pairsToRecord } from "../payout-codec.js";
import type { RepeatQuery } from "../payout-store.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** The script's reply: nothing, or the payout's id and its fields. */
const ReplySchema = z.union([z.tuple([]), z.tuple([z.string(), z.array(z.string())])]);

/** The id and stored fields of the payout `query` finds, or null. */
export async function readLatestRepeat(
  redis: RedisClient,
  keys: Keys,
  query: RepeatQuery,
): Promise<{ id: string; hash: Record<string, string> } | null> {
  if (query.lookback <= 0) return null;
  const reply = ReplySchema.parse(
    await runScript(
      redis,
      SCRIPTS["payout-latest-repeat"],
      [keys.phonePayouts(query.phone)],
      [
        query.sinceMs,
        query.lookback,
        keys.payout(""),
        JSON.stringify(query.amount),
        JSON.stringify(query.kind),
        JSON.stringify(query.excludedStates.map((state) => JSON.stringify(state))),
        query.skipId ?? "",
        query.skipIdPrefix ?? "",
      ],
    ),
  );
  if (reply.length === 0) return null;
  const [id, fields] = reply;
  return { id, hash: pairsToRecord(fields) };
}
