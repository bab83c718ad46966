/**
 * Fixed-window counters by name on Redis, counted and given their expiry in one script
 * (lua/throttle-take.lua).
 */
import { z } from "zod";
import type { ThrottleStore } from "../types.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** Built once: building a zod schema costs more than running it. */
const NumberReplySchema = z.number();

export class RedisThrottleStore implements ThrottleStore {
  readonly #redis: RedisClient;
  readonly #keyOf: (name: string) => string;

  constructor(redis: RedisClient, keyOf: (name: string) => string) {
    this.#redis = redis;
    this.#keyOf = keyOf;
  }

  async take(name: string, limit: number, windowMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      SCRIPTS["throttle-take"],
      [this.#keyOf(name)],
      [limit, windowMs],
    );
    return NumberReplySchema.parse(reply) === 1;
  }
}
