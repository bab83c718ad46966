/**
 * The PIN store's contract, run on Redis and in memory: a hash is set once, tries are
 * counted before a check so guesses at once are all counted, the fifth wrong one locks
 * (and queues the admins' alert in the same step, once), and a reset forgets it all.
 */
import { describe, expect, it } from "vitest";
import { noticeKey } from "../../src/model/notice.js";
import type { PinLimits } from "../../src/store/types.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

const USER = 4242;
const T0 = Date.now();
const limits = (nowMs = T0): PinLimits => ({ nowMs, maxFailures: 5, lockMs: 900_000 });

export function describePinStoreContract(makeStores: MakeStores): void {
  describe("PinStore", () => {
    const harness = storesPerTest(makeStores, 600_000);

    it("keeps the first hash set and refuses a second", async () => {
      const { pins } = harness.stores;
      expect(await pins.status(USER, T0)).toEqual({ kind: "none" });
      expect(await pins.beginTry(USER, limits())).toEqual({ outcome: "none" });
      expect(await pins.setIfNone(USER, "$argon2id$first", T0)).toBe(true);
      expect(await pins.setIfNone(USER, "$argon2id$second", T0)).toBe(false);
      expect(await pins.status(USER, T0)).toEqual({ kind: "set", failures: 0 });
      expect(await pins.beginTry(USER, limits())).toEqual({
        outcome: "try",
        hash: "$argon2id$first",
      });
    });

    it("counts wrong tries, clears them on a right one, and locks at the fifth in a row", async () => {
      const { pins, outbox } = harness.stores;
      await pins.setIfNone(USER, "$argon2id$h", T0);
      const wrong = async () => {
        await pins.beginTry(USER, limits());
        return pins.finishTry(USER, false, limits());
      };
      expect(await wrong()).toEqual({ outcome: "wrong", left: 4 });
      expect(await wrong()).toEqual({ outcome: "wrong", left: 3 });
      await pins.beginTry(USER, limits());
      expect(await pins.finishTry(USER, true, limits())).toEqual({ outcome: "right" });
      for (const left of [4, 3, 2, 1]) expect(await wrong()).toEqual({ outcome: "wrong", left });
      const untilMs = T0 + 900_000;
      expect(await wrong()).toEqual({ outcome: "locked", untilMs, justLocked: true });
      expect(await pins.status(USER, T0 + 1)).toEqual({ kind: "locked", untilMs });
      expect(await pins.beginTry(USER, limits(T0 + 1))).toEqual({
        outcome: "locked",
        untilMs,
        justLocked: false,
      });
      const alert = noticeKey({ kind: "pin_locked", userId: USER, untilMs });
      expect(await outbox.claimDue(T0 + 1, 10, 60_000)).toEqual([alert]);
      // Once the lock has passed, tries start again from none counted.
      expect(await pins.status(USER, untilMs)).toEqual({ kind: "set", failures: 0 });
      expect(await pins.beginTry(USER, limits(untilMs))).toEqual({
        outcome: "try",
        hash: "$argon2id$h",
      });
    });

    it("counts guesses begun at once, so no more than five are ever checked per lock", async () => {
      const { pins } = harness.stores;
      await pins.setIfNone(USER, "$argon2id$h", T0);
      const begun = await Promise.all(
        Array.from({ length: 8 }, () => pins.beginTry(USER, limits())),
      );
      expect(begun.filter((attempt) => attempt.outcome === "try")).toHaveLength(5);
      const locked = begun.filter((attempt) => attempt.outcome === "locked");
      expect(locked).toHaveLength(3);
      // The first over the limit locked it (and queued the one alert); the others found it so.
      expect(locked.filter((attempt) => attempt.justLocked)).toHaveLength(1);
      expect(await harness.stores.outbox.claimDue(Date.now() + 60_000, 10, 60_000)).toHaveLength(1);
      expect((await pins.status(USER, T0)).kind).toBe("locked");
    });

    it("forgets the hash, the tries and the lock on reset", async () => {
      const { pins } = harness.stores;
      expect(await pins.reset(USER)).toBe(false);
      await pins.setIfNone(USER, "$argon2id$h", T0);
      for (let i = 0; i < 5; i += 1) {
        await pins.beginTry(USER, limits());
        await pins.finishTry(USER, false, limits());
      }
      expect((await pins.status(USER, T0)).kind).toBe("locked");
      expect(await pins.reset(USER)).toBe(true);
      expect(await pins.status(USER, T0)).toEqual({ kind: "none" });
      expect(await pins.setIfNone(USER, "$argon2id$new", T0)).toBe(true);
      expect(await pins.status(USER, T0)).toEqual({ kind: "set", failures: 0 });
    });
  });
}
