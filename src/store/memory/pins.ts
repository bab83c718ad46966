/** PinStore in memory (the demo without Redis): the Redis store's rules, one process. */
import { noticeKey } from "../../model/notice.js";
import type { PinStatus } from "../../model/pin.js";
import type { PinLimits, PinStore, PinTry, PinTryResult } from "../pin-store.js";

interface PinRecord {
  hash?: string;
  setAtMs?: number;
  tries: number;
  lockedUntilMs?: number;
}

export class MemoryPinStore implements PinStore {
  readonly #records = new Map<number, PinRecord>();
  readonly #enqueueNotice: (key: string, atMs: number) => void;

  /** `enqueueNotice`: puts a notice into the outbox (the lock's alert). */
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

  async setIfNone(userId: number, hash: string, nowMs: number): Promise<boolean> {
    const record = this.#records.get(userId);
    if (record?.hash !== undefined) return false;
    this.#records.set(userId, { hash, setAtMs: nowMs, tries: 0 });
    return true;
  }

  async beginTry(userId: number, limits: PinLimits): Promise<PinTry> {
    const record = this.#records.get(userId);
    if (record?.lockedUntilMs !== undefined && record.lockedUntilMs > limits.nowMs) {
      return { outcome: "locked", untilMs: record.lockedUntilMs, justLocked: false };
    }
    if (record?.hash === undefined) return { outcome: "none" };
    record.tries += 1;
    if (record.tries > limits.maxFailures) {
      return { outcome: "locked", untilMs: this.#lock(userId, record, limits), justLocked: true };
    }
    return { outcome: "try", hash: record.hash };
  }

  async finishTry(userId: number, right: boolean, limits: PinLimits): Promise<PinTryResult> {
    const record = this.#records.get(userId);
    if (record?.hash === undefined) {
      // Reset while the try ran: a right answer to the old PIN proves nothing.
      return { outcome: "wrong", left: limits.maxFailures };
    }
    if (right) {
      record.tries = 0;
      return { outcome: "right" };
    }
    if (record.lockedUntilMs !== undefined && record.lockedUntilMs > limits.nowMs) {
      return { outcome: "locked", untilMs: record.lockedUntilMs, justLocked: false };
    }
    if (record.tries >= limits.maxFailures) {
      return { outcome: "locked", untilMs: this.#lock(userId, record, limits), justLocked: true };
    }
    return { outcome: "wrong", left: limits.maxFailures - record.tries };
  }

  async reset(userId: number): Promise<boolean> {
    return this.#records.delete(userId);
  }

  #lock(userId: number, record: PinRecord, limits: PinLimits): number {
    const untilMs = limits.nowMs + limits.lockMs;
    record.lockedUntilMs = untilMs;
    record.tries = 0;
    this.#enqueueNotice(noticeKey({ kind: "pin_locked", userId, untilMs }), limits.nowMs);
    return untilMs;
  }
}
