/**
 * The PIN store's contract, run on Redis and in memory: a hash is set once, tries are
 * counted before a check so guesses at once are all counted, the fifth wrong one in a row
 * or the tenth in the window locks (and queues the admins' alert in the same step, once),
 * a right one tells of the wrong tries before it, and a reset forgets the PIN but keeps a
 * lock, tells the person and the admins, and makes the next PIN need init data signed since.
 */
import { describe, expect, it } from "vitest";
import { noticeKey } from "../../src/model/notice.js";
import type { PinLimits, PinStore, PinTryResult } from "../../src/store/types.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

const USER = 4242;
const ADMIN = 4243;
const T0 = Date.now();
const DAY_MS = 86_400_000;
const limits = (nowMs = T0): PinLimits => ({
  nowMs,
  maxFailures: 5,
  windowMaxFailures: 10,
  windowMs: DAY_MS,
  lockMs: 900_000,
});
const at = (nowMs = T0, signedAtMs = nowMs) => ({ nowMs, signedAtMs });

/** One whole try at `nowMs`: begun, then finished right or wrong. */
async function attempt(pins: PinStore, right: boolean, nowMs = T0): Promise<PinTryResult | null> {
  const begun = await pins.beginTry(USER, limits(nowMs));
  if (begun.outcome !== "try") return null;
  return pins.finishTry(USER, right, begun, limits(nowMs));
}

export function describePinStoreContract(makeStores: MakeStores): void {
  describe("PinStore", () => {
    const harness = storesPerTest(makeStores, 600_000);

    it("keeps the first hash set and refuses a second", async () => {
      const { pins, outbox } = harness.stores;
      expect(await pins.status(USER, T0)).toEqual({ kind: "none" });
      expect(await pins.beginTry(USER, limits())).toEqual({ outcome: "none" });
      expect(await pins.setIfNone(USER, "$argon2id$first", at())).toEqual({
        outcome: "set",
        afterReset: false,
      });
      expect(await pins.setIfNone(USER, "$argon2id$second", at())).toEqual({
        outcome: "already_set",
      });
      expect(await pins.status(USER, T0)).toEqual({ kind: "set", failures: 0 });
      expect(await pins.beginTry(USER, limits())).toMatchObject({
        outcome: "try",
        hash: "$argon2id$first",
      });
      // A first PIN (never reset) tells no one.
      expect(await outbox.claimDue(T0 + 1, 10, 60_000)).toEqual([]);
    });

    it("counts wrong tries, clears them on a right one, and locks at the fifth in a row", async () => {
      const { pins, outbox } = harness.stores;
      await pins.setIfNone(USER, "$argon2id$h", at());
      expect(await attempt(pins, false)).toEqual({ outcome: "wrong", left: 4 });
      expect(await attempt(pins, false)).toEqual({ outcome: "wrong", left: 3 });
      expect(await attempt(pins, true)).toEqual({ outcome: "right", toldOfWrong: 2 });
      // The right one told of the two wrong ones before it.
      const told = noticeKey({
        kind: "pin_wrong_tries",
        userId: USER,
        count: 2,
        lastAtMs: T0,
        atMs: T0,
      });
      expect(await outbox.claimDue(T0 + 1, 10, 60_000)).toEqual([told]);
      for (const left of [4, 3, 2, 1]) {
        expect(await attempt(pins, false)).toEqual({ outcome: "wrong", left });
      }
      const untilMs = T0 + 900_000;
      expect(await attempt(pins, false)).toEqual({ outcome: "locked", untilMs, justLocked: true });
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
      expect(await pins.beginTry(USER, limits(untilMs))).toMatchObject({
        outcome: "try",
        hash: "$argon2id$h",
      });
    });

    it("locks at the tenth wrong try within 24 hours, right ones in between or not", async () => {
      const { pins, outbox } = harness.stores;
      await pins.setIfNone(USER, "$argon2id$h", at());
      // Four wrong, one right, four wrong, one right: never five in a row.
      for (const round of [0, 1]) {
        const base = T0 + round * 3_600_000;
        for (let i = 0; i < 4; i += 1) {
          expect((await attempt(pins, false, base + i))?.outcome).toBe("wrong");
        }
        expect(await attempt(pins, true, base + 10)).toMatchObject({ outcome: "right" });
      }
      // Two left in the window, though the count in a row says four.
      expect(await attempt(pins, false, T0 + 7_200_000)).toEqual({ outcome: "wrong", left: 1 });
      const lockAtMs = T0 + 7_200_001;
      const untilMs = lockAtMs + 900_000;
      expect(await attempt(pins, false, lockAtMs)).toEqual({
        outcome: "locked",
        untilMs,
        justLocked: true,
      });
      const keys = await outbox.claimDue(lockAtMs + 1, 10, 60_000);
      expect(keys).toContain(noticeKey({ kind: "pin_locked", userId: USER, untilMs }));
    });

    it("forgets wrong tries once they are older than the window", async () => {
      const { pins } = harness.stores;
      await pins.setIfNone(USER, "$argon2id$h", at());
      for (let i = 0; i < 9; i += 1) {
        await attempt(pins, false, T0 + i);
        if (i % 4 === 3 || i === 8) await attempt(pins, true, T0 + i);
      }
      // A day after those nine, they no longer count: this is one of five in a row, not the
      // tenth in the window.
      const later = T0 + DAY_MS + 10;
      expect(await attempt(pins, false, later)).toEqual({ outcome: "wrong", left: 4 });
    });

    it("counts guesses begun at once, so no more than five are ever checked per lock", async () => {
      const { pins } = harness.stores;
      await pins.setIfNone(USER, "$argon2id$h", at());
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

    it("forgets the hash and the tries on reset, tells of it, and keeps the lock", async () => {
      const { pins, outbox } = harness.stores;
      expect(await pins.reset(USER, { byUserId: ADMIN, nowMs: T0 })).toBe(false);
      await pins.setIfNone(USER, "$argon2id$h", at());
      for (let i = 0; i < 5; i += 1) await attempt(pins, false);
      const untilMs = T0 + 900_000;
      expect(await pins.status(USER, T0)).toEqual({ kind: "locked", untilMs });
      await outbox.claimDue(T0 + 1, 10, 60_000);
      const resetAtMs = T0 + 1_500;
      expect(await pins.reset(USER, { byUserId: ADMIN, nowMs: resetAtMs })).toBe(true);
      expect(await outbox.claimDue(resetAtMs + 1, 10, 60_000)).toEqual([
        noticeKey({ kind: "pin_reset", userId: USER, byUserId: ADMIN, atMs: resetAtMs }),
      ]);
      // Still locked: no new PIN, no try, until the lock ends.
      expect(await pins.status(USER, resetAtMs)).toEqual({ kind: "locked", untilMs });
      expect(await pins.setIfNone(USER, "$argon2id$new", at(resetAtMs))).toEqual({
        outcome: "locked",
        untilMs,
      });
      expect(await pins.status(USER, untilMs)).toEqual({ kind: "none" });
      // Init data signed before the reset's second sets nothing; signed since, it does.
      const before = Math.floor(resetAtMs / 1000) * 1000 - 1000;
      expect(await pins.setIfNone(USER, "$argon2id$new", at(untilMs, before))).toEqual({
        outcome: "stale",
      });
      const since = Math.floor(resetAtMs / 1000) * 1000;
      expect(await pins.setIfNone(USER, "$argon2id$new", at(untilMs, since))).toEqual({
        outcome: "set",
        afterReset: true,
      });
      expect(await pins.status(USER, untilMs)).toEqual({ kind: "set", failures: 0 });
      // (The notices claimed above are due again by now: their claims have lapsed.)
      expect(await outbox.claimDue(untilMs + 1, 10, 60_000)).toContain(
        noticeKey({ kind: "pin_renewed", userId: USER, atMs: untilMs }),
      );
      // The next reset-free set is an ordinary one again.
      expect(await pins.reset(USER, { byUserId: 0, nowMs: untilMs + 1 })).toBe(true);
      expect(await pins.setIfNone(USER, "$argon2id$3", at(untilMs + 2))).toEqual({
        outcome: "set",
        afterReset: true,
      });
      expect(await pins.setIfNone(USER, "$argon2id$4", at(untilMs + 3))).toEqual({
        outcome: "already_set",
      });
    });
  });
}
