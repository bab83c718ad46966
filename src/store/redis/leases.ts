/**
 * Named leases on Redis (who runs a background loop): taken, renewed and given up in one
 * script each (lua/lease-*.lua), so an owner never extends or deletes another's lease.
 */
import { z } from "zod";
import type { LeaseStore } from "../types.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** Built once: building a zod schema costs more than running it. */
const NumberReplySchema = z.number();

export class RedisLeaseStore implements LeaseStore {
  readonly #redis: RedisClient;
  readonly #keyOf: (name: string) => string;

  constructor(redis: RedisClient, keyOf: (name: string) => string) {
    this.#redis = redis;
    this.#keyOf = keyOf;
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      SCRIPTS["lease-acquire"],
      [this.#keyOf(name)],
      [owner, ttlMs],
    );
    return NumberReplySchema.parse(reply) === 1;
  }

  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      SCRIPTS["lease-renew"],
      [this.#keyOf(name)],
      [owner, ttlMs],
    );
    return NumberReplySchema.parse(reply) === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await runScript(this.#redis, SCRIPTS["lease-release"], [this.#keyOf(name)], [owner]);
  }
}
