/** PinStore in memory (the demo without Redis): the Redis store's rules, one process. */
import { noticeKey } from "../../model/notice.js";
import type { PinStatus } from "../../model/pin.js";
import type {
  PinLimits,
  PinSetOutcome,
  PinStore,
  PinTry,
  PinTryBegun,
  PinTryResult,
} from "../pin-store.js";

interface PinRecord {
  hash?: string;
  setAtMs?: number;
  tries: number;
  /** The tries' times in the sliding window (wrong ones, and those under way). */
  window: number[];
  unseenWrong: number;
  lastWrongAtMs: number;
  lockedUntilMs?: number;
  resetAtMs?: number;
}

export class MemoryPinStore implements PinStore {
  readonly #records = new Map<number, PinRecord>();
  readonly #enqueueNotice: (key: string, atMs: number) => void;

  /** `enqueueNotice`: puts a notice into the outbox (the lock's alert, a reset's notice…). */
  constructor(enqueueNotice: (key: string, atMs: number) => void) {
    this.#enqueueNotice = enqueueNotice;
  }

  async status(userId: number, nowMs: number): Promise<PinStatus> {
    const record = this.#records.get(userId);
    if (record?.lockedUntilMs !== undefined && record.lockedUntilMs > nowMs) {
      return { kind: "locked", untilMs: record.lockedUntilMs };
    }
    return record?.hash === undefined ? { kind: "none" } : { kind: "set", failures: record.tries };
  }

  async setIfNone(
    userId: number,
    hash: string,
    at: { nowMs: number; signedAtMs: number },
  ): Promise<PinSetOutcome> {
    const record = this.#records.get(userId);
    if (record?.hash !== undefined) return { outcome: "already_set" };
    if (record?.lockedUntilMs !== undefined && record.lockedUntilMs > at.nowMs) {
      return { outcome: "locked", untilMs: record.lockedUntilMs };
    }
    const resetAtMs = record?.resetAtMs;
    if (resetAtMs !== undefined && at.signedAtMs < Math.floor(resetAtMs / 1000) * 1000) {
      return { outcome: "stale" };
    }
    this.#records.set(userId, {
      hash,
      setAtMs: at.nowMs,
      tries: 0,
      window: record?.window ?? [],
      unseenWrong: record?.unseenWrong ?? 0,
      lastWrongAtMs: record?.lastWrongAtMs ?? 0,
    });
    if (resetAtMs === undefined) return { outcome: "set", afterReset: false };
    this.#enqueueNotice(noticeKey({ kind: "pin_renewed", userId, atMs: at.nowMs }), at.nowMs);
    return { outcome: "set", afterReset: true };
  }

  async beginTry(userId: number, limits: PinLimits): Promise<PinTry> {
    const record = this.#records.get(userId);
    if (record?.lockedUntilMs !== undefined && record.lockedUntilMs > limits.nowMs) {
      return { outcome: "locked", untilMs: record.lockedUntilMs, justLocked: false };
    }
    if (record?.hash === undefined) return { outcome: "none" };
    record.tries += 1;
    record.window = [...inWindow(record, limits), limits.nowMs];
    if (record.tries > limits.maxFailures || record.window.length > limits.windowMaxFailures) {
      return { outcome: "locked", untilMs: this.#lock(userId, record, limits), justLocked: true };
    }
    return {
      outcome: "try",
      hash: record.hash,
      atMs: limits.nowMs,
      unseenWrong: record.unseenWrong,
      lastWrongAtMs: record.lastWrongAtMs,
    };
  }

  async finishTry(
    userId: number,
    right: boolean,
    begun: PinTryBegun,
    limits: PinLimits,
  ): Promise<PinTryResult> {
    const record = this.#records.get(userId);
    if (record?.hash === undefined) {
      // Reset while the try ran: a right answer to the old PIN proves nothing.
      return { outcome: "wrong", left: limits.maxFailures };
    }
    if (right) {
      const own = record.window.indexOf(begun.atMs);
      if (own >= 0) record.window.splice(own, 1);
      record.window = inWindow(record, limits);
      record.tries = 0;
      const told = begun.unseenWrong;
      if (told > 0) {
        record.unseenWrong = Math.max(record.unseenWrong - told, 0);
        const notice = noticeKey({
          kind: "pin_wrong_tries",
          userId,
          count: told,
          lastAtMs: begun.lastWrongAtMs,
          atMs: limits.nowMs,
        });
        this.#enqueueNotice(notice, limits.nowMs);
      }
      return { outcome: "right", toldOfWrong: told };
    }
    record.unseenWrong += 1;
    record.lastWrongAtMs = limits.nowMs;
    if (record.lockedUntilMs !== undefined && record.lockedUntilMs > limits.nowMs) {
      return { outcome: "locked", untilMs: record.lockedUntilMs, justLocked: false };
    }
    record.window = inWindow(record, limits);
    if (record.tries >= limits.maxFailures || record.window.length >= limits.windowMaxFailures) {
      return { outcome: "locked", untilMs: this.#lock(userId, record, limits), justLocked: true };
    }
    const left = Math.min(
      limits.maxFailures - record.tries,
      limits.windowMaxFailures - record.window.length,
    );
    return { outcome: "wrong", left };
  }

  async reset(userId: number, by: { byUserId: number; nowMs: number }): Promise<boolean> {
    const record = this.#records.get(userId);
    if (record?.hash === undefined) return false;
    const kept: PinRecord = { tries: 0, window: [], unseenWrong: 0, lastWrongAtMs: 0 };
    if (record.lockedUntilMs !== undefined) kept.lockedUntilMs = record.lockedUntilMs;
    kept.resetAtMs = by.nowMs;
    this.#records.set(userId, kept);
    const notice = noticeKey({ kind: "pin_reset", userId, byUserId: by.byUserId, atMs: by.nowMs });
    this.#enqueueNotice(notice, by.nowMs);
    return true;
  }

  #lock(userId: number, record: PinRecord, limits: PinLimits): number {
    const untilMs = limits.nowMs + limits.lockMs;
    record.lockedUntilMs = untilMs;
    record.tries = 0;
    record.window = [];
    this.#enqueueNotice(noticeKey({ kind: "pin_locked", userId, untilMs }), limits.nowMs);
    return untilMs;
  }
}

/** The record's window without the tries at or before its start. */
function inWindow(record: PinRecord, limits: PinLimits): number[] {
  const startMs = limits.nowMs - limits.windowMs;
  return record.window.filter((atMs) => atMs > startMs);
}
