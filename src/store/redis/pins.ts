/** PinStore on Redis: one hash per person, every step one script (lua/pin-*.lua). */
import { z } from "zod";
import { noticeKey } from "../../model/notice.js";
import type { PinStatus } from "../../model/pin.js";
import type { Keys } from "../keys.js";
import type {
  PinLimits,
  PinSetOutcome,
  PinStore,
  PinTry,
  PinTryBegun,
  PinTryResult,
} from "../pin-store.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** Built once: building a zod schema costs more than running it. */
const NumberReplySchema = z.number();

const Whole = z.coerce.number().int().nonnegative();

const BeginReplySchema = z.union([
  z.tuple([z.literal("none")]),
  z.tuple([z.literal("locked"), Whole, z.enum(["0", "1"])]),
  z.tuple([z.literal("try"), z.string().min(1), Whole, Whole]),
]);

const FinishReplySchema = z.union([
  z.tuple([z.literal("right")]),
  z.tuple([z.literal("wrong"), Whole]),
  z.tuple([z.literal("locked"), Whole, z.enum(["0", "1"])]),
]);

const SetReplySchema = z.union([
  z.tuple([z.literal("set"), z.enum(["0", "1"])]),
  z.tuple([z.literal("already")]),
  z.tuple([z.literal("locked"), Whole]),
  z.tuple([z.literal("stale")]),
]);

const StatusSchema = z.tuple([
  z.string().nullable(),
  Whole.nullable().catch(null),
  Whole.nullable().catch(null),
]);

export class RedisPinStore implements PinStore {
  readonly #redis: RedisClient;
  readonly #keys: Pick<Keys, "pin" | "outbox">;

  constructor(redis: RedisClient, keys: Pick<Keys, "pin" | "outbox">) {
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

  async setIfNone(
    userId: number,
    hash: string,
    at: { nowMs: number; signedAtMs: number },
  ): Promise<PinSetOutcome> {
    const renewed = noticeKey({ kind: "pin_renewed", userId, atMs: at.nowMs });
    const reply = SetReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["pin-set"],
        [this.#keys.pin(userId), this.#keys.outbox()],
        [hash, at.nowMs, at.signedAtMs, renewed],
      ),
    );
    switch (reply[0]) {
      case "set":
        return { outcome: "set", afterReset: reply[1] === "1" };
      case "already":
        return { outcome: "already_set" };
      case "locked":
        return { outcome: "locked", untilMs: reply[1] };
      case "stale":
        return { outcome: "stale" };
    }
  }

  async beginTry(userId: number, limits: PinLimits): Promise<PinTry> {
    const untilMs = limits.nowMs + limits.lockMs;
    const reply = BeginReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["pin-begin-try"],
        [this.#keys.pin(userId), this.#keys.outbox()],
        [
          limits.nowMs,
          limits.maxFailures,
          untilMs,
          lockNotice(userId, untilMs),
          limits.windowMaxFailures,
          limits.nowMs - limits.windowMs,
        ],
      ),
    );
    if (reply[0] === "none") return { outcome: "none" };
    if (reply[0] === "locked") {
      return { outcome: "locked", untilMs: reply[1], justLocked: reply[2] === "1" };
    }
    return {
      outcome: "try",
      hash: reply[1],
      atMs: limits.nowMs,
      unseenWrong: reply[2],
      lastWrongAtMs: reply[3],
    };
  }

  async finishTry(
    userId: number,
    right: boolean,
    begun: PinTryBegun,
    limits: PinLimits,
  ): Promise<PinTryResult> {
    const untilMs = limits.nowMs + limits.lockMs;
    const told = right ? begun.unseenWrong : 0;
    const reply = FinishReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["pin-finish-try"],
        [this.#keys.pin(userId), this.#keys.outbox()],
        [
          right ? "1" : "0",
          limits.nowMs,
          limits.maxFailures,
          untilMs,
          lockNotice(userId, untilMs),
          limits.windowMaxFailures,
          limits.nowMs - limits.windowMs,
          begun.atMs,
          told,
          wrongTriesNotice(userId, begun, limits.nowMs),
        ],
      ),
    );
    if (reply[0] === "right") return { outcome: "right", toldOfWrong: told };
    if (reply[0] === "wrong") return { outcome: "wrong", left: reply[1] };
    return { outcome: "locked", untilMs: reply[1], justLocked: reply[2] === "1" };
  }

  async reset(userId: number, by: { byUserId: number; nowMs: number }): Promise<boolean> {
    const notice = noticeKey({ kind: "pin_reset", userId, byUserId: by.byUserId, atMs: by.nowMs });
    const reply = await runScript(
      this.#redis,
      SCRIPTS["pin-reset"],
      [this.#keys.pin(userId), this.#keys.outbox()],
      [by.nowMs, notice],
    );
    return NumberReplySchema.parse(reply) === 1;
  }
}

function lockNotice(userId: number, untilMs: number): string {
  return noticeKey({ kind: "pin_locked", userId, untilMs });
}

/** The notice of the wrong tries a right one tells of (queued only when there are some). */
function wrongTriesNotice(userId: number, begun: PinTryBegun, atMs: number): string {
  return noticeKey({
    kind: "pin_wrong_tries",
    userId,
    count: Math.max(begun.unseenWrong, 1),
    lastAtMs: begun.lastWrongAtMs,
    atMs,
  });
}
