/**
 * A shared schedule of ids due at a time (the tracking schedule, the outbox) on Redis: a
 * sorted set. A claim re-scores what it takes in one script (lua/due-claim.lua), so two
 * replicas never take the same id.
 */
import { z } from "zod";
import { type WakeQueue, wakeChannel } from "../keys.js";
import type { DueQueue, ScheduleOptions } from "../types.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** Built once: building a zod schema costs more than running it. */
const IdsSchema = z.array(z.string());

export class RedisDueQueue implements DueQueue {
  readonly #redis: RedisClient;
  readonly #key: string;
  /** The wake channel and message of this queue (lua/includes/wake.lua). */
  readonly #wake: { channel: string; message: string };

  /** `queue`: the key's name after the merchant's key prefix (`tracking`, `outbox`). */
  constructor(redis: RedisClient, key: string, queue: WakeQueue) {
    this.#redis = redis;
    this.#key = key;
    const keyPrefix = key.slice(0, key.length - queue.length);
    this.#wake = { channel: wakeChannel(keyPrefix), message: `${queue} ${keyPrefix}` };
  }

  /** Sets (or moves) the time `id` is due; `wake`: with the wake, in one transaction. */
  async schedule(id: string, dueAtMs: number, options?: ScheduleOptions): Promise<void> {
    if (!options?.wake) {
      await this.#redis.zadd(this.#key, dueAtMs, id);
      return;
    }
    const { channel, message } = this.#wake;
    await this.#redis.multi().zadd(this.#key, dueAtMs, id).publish(channel, message).exec();
  }

  /** Up to `limit` ids due at `nowMs`, earliest first; each is hidden until `nowMs + leaseMs`. */
  async claimDue(nowMs: number, limit: number, leaseMs: number): Promise<string[]> {
    if (limit <= 0) return [];
    const reply = await runScript(
      this.#redis,
      SCRIPTS["due-claim"],
      [this.#key],
      [nowMs, limit, nowMs + leaseMs],
    );
    return IdsSchema.parse(reply);
  }

  async remove(id: string): Promise<void> {
    await this.#redis.zrem(this.#key, id);
  }

  async dueAt(id: string): Promise<number | null> {
    const score = await this.#redis.zscore(this.#key, id);
    return score === null ? null : Number(score);
  }

  async dueAtMany(ids: readonly string[]): Promise<Array<number | null>> {
    if (ids.length === 0) return [];
    const scores = await this.#redis.zmscore(this.#key, ...ids);
    return scores.map((score) => (score === null ? null : Number(score)));
  }

  async size(): Promise<number> {
    return this.#redis.zcard(this.#key);
  }

  async earliestDueAtMs(): Promise<number | null> {
    const [, score] = IdsSchema.parse(await this.#redis.zrange(this.#key, 0, 0, "WITHSCORES"));
    return score === undefined ? null : Number(score);
  }
}
