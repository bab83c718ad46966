/** ReportsStore in memory (the demo without Redis): the same steps, each run to completion. */

import type { AuditDraft } from "../../model/audit.js";
import type { OperationObservation, OperationState } from "../../model/availability.js";
import {
  availabilityAuditDraft,
  availabilityNoticeKey,
  DIGEST_MARK_MS,
  digestNoticeKey,
  observedState,
  operationField,
} from "../reports-codec.js";
import type { AvailabilityChange, ReportsStore } from "../types.js";

export class MemoryReportsStore implements ReportsStore {
  readonly #digests = new Map<string, number>();
  readonly #states = new Map<string, OperationState>();
  readonly #now: () => number;
  /** Queues a notice in the outbox, like the Redis scripts' ZADD. */
  readonly #enqueue: (key: string, atMs: number) => void;

  /** Appends to the audit log, like the Redis script's XADD. */
  readonly #audit: (entry: AuditDraft) => void;

  constructor(
    now: () => number,
    enqueue: (key: string, atMs: number) => void,
    audit: (entry: AuditDraft) => void = () => {},
  ) {
    this.#now = now;
    this.#enqueue = enqueue;
    this.#audit = audit;
  }

  async queueDigestOnce(day: string, nowMs: number): Promise<boolean> {
    const keptUntilMs = this.#digests.get(day);
    if (keptUntilMs !== undefined && keptUntilMs > this.#now()) return false;
    this.#digests.set(day, this.#now() + DIGEST_MARK_MS);
    this.#enqueue(digestNoticeKey(day), nowMs);
    return true;
  }

  async observeAvailability(
    observation: OperationObservation,
    nowMs: number,
  ): Promise<AvailabilityChange> {
    const field = operationField(observation);
    const previous = this.#states.get(field);
    const state = observedState(observation, nowMs, previous === undefined);
    if (previous && previous.up === state.up) return { kind: "same", state: { ...previous } };
    this.#states.set(field, state);
    if (previous || !state.up) {
      this.#enqueue(availabilityNoticeKey(state), nowMs);
      this.#audit(availabilityAuditDraft(state));
    }
    return previous ? { kind: "changed", state, previous } : { kind: "first", state };
  }

  async availability(): Promise<OperationState[]> {
    return [...this.#states.values()].map((state) => ({ ...state }));
  }
}
