/** PinStore on Redis: one hash per person, every step one script (redis/pin-scripts.ts). */
import type { Redis } from "ioredis";
import { z } from "zod";
import { noticeKey } from "../../model/notice.js";
import type { PinStatus } from "../../model/pin.js";
import type { Keys } from "../keys.js";
import type { PinLimits, PinStore, PinTry, PinTryResult } from "../pin-store.js";
import { runScript, SCRIPTS } from "./scripts.js";

const Whole = z.coerce.number().int().nonnegative();

const BeginReplySchema = z.union([
  z.tuple([z.literal("none")]),
  z.tuple([z.literal("locked"), Whole, z.enum(["0", "1"])]),
  z.tuple([z.literal("try"), z.string().min(1)]),
]);

const FinishReplySchema = z.union([
  z.tuple([z.literal("right")]),
  z.tuple([z.literal("wrong"), Whole]),
  z.tuple([z.literal("locked"), Whole, z.enum(["0", "1"])]),
]);

const StatusSchema = z.tuple([
  z.string().nullable(),
  Whole.nullable().catch(null),
  Whole.nullable().catch(null),
]);

export class RedisPinStore implements PinStore {
  readonly #redis: Redis;
  readonly #keys: Pick<Keys, "pin" | "outbox">;

  constructor(redis: Redis, keys: Pick<Keys, "pin" | "outbox">) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async status(userId: number, nowMs: number): Promise<PinStatus> {
    const [hash, tries, lockedUntilMs] = StatusSchema.parse(
      await this.#redis.hmget(this.#keys.pin(userId), "hash", "tries", "lockedUntilMs"),
    );
    if (lockedUntilMs !== null && lockedUntilMs > nowMs) {
      return { kind: "locked", untilMs: lockedUntilMs };
    }
    return hash === null ? { kind: "none" } : { kind: "set", failures: tries ?? 0 };
  }

  async setIfNone(userId: number, hash: string, nowMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      SCRIPTS["pin-set"],
      [this.#keys.pin(userId)],
      [hash, nowMs],
    );
    return z.number().parse(reply) === 1;
  }

  async beginTry(userId: number, limits: PinLimits): Promise<PinTry> {
    const untilMs = limits.nowMs + limits.lockMs;
    const reply = BeginReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["pin-begin-try"],
        [this.#keys.pin(userId), this.#keys.outbox()],
        [limits.nowMs, limits.maxFailures, untilMs, lockNotice(userId, untilMs)],
      ),
    );
    if (reply[0] === "none") return { outcome: "none" };
    if (reply[0] === "locked") {
      return { outcome: "locked", untilMs: reply[1], justLocked: reply[2] === "1" };
    }
    return { outcome: "try", hash: reply[1] };
  }

  async finishTry(userId: number, right: boolean, limits: PinLimits): Promise<PinTryResult> {
    const untilMs = limits.nowMs + limits.lockMs;
    const reply = FinishReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["pin-finish-try"],
        [this.#keys.pin(userId), this.#keys.outbox()],
        [right ? "1" : "0", limits.nowMs, limits.maxFailures, untilMs, lockNotice(userId, untilMs)],
      ),
    );
    if (reply[0] === "right") return { outcome: "right" };
    if (reply[0] === "wrong") return { outcome: "wrong", left: reply[1] };
    return { outcome: "locked", untilMs: reply[1], justLocked: reply[2] === "1" };
  }

  async reset(userId: number): Promise<boolean> {
    return (await this.#redis.del(this.#keys.pin(userId))) === 1;
  }
}

function lockNotice(userId: number, untilMs: number): string {
  return noticeKey({ kind: "pin_locked", userId, untilMs });
}
