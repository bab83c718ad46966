/** Ids due at a time (the outbox, the tracking schedule), in process memory. */
import type { DueQueue } from "../types.js";

export class MemoryDueQueue implements DueQueue {
  readonly #dueAt = new Map<string, number>();

  /** Synchronous `schedule`, for a store that enqueues inside its own atomic step. */
  put(id: string, dueAtMs: number): void {
    this.#dueAt.set(id, dueAtMs);
  }

  async schedule(id: string, dueAtMs: number): Promise<void> {
    this.put(id, dueAtMs);
  }

  /** Due ids in Redis ZRANGEBYSCORE order (time, then id); each is re-timed to the lease end. */
  async claimDue(nowMs: number, limit: number, leaseMs: number): Promise<string[]> {
    if (limit <= 0) return [];
    const due = [...this.#dueAt]
      .filter(([, dueAtMs]) => dueAtMs <= nowMs)
      .sort(([idA, a], [idB, b]) => (a !== b ? a - b : idA < idB ? -1 : idA > idB ? 1 : 0))
      .slice(0, limit)
      .map(([id]) => id);
    for (const id of due) this.#dueAt.set(id, nowMs + leaseMs);
    return due;
  }

  /** Synchronous `remove`, for a store that dequeues inside its own atomic step. */
  take(id: string): void {
    this.#dueAt.delete(id);
  }

  async remove(id: string): Promise<void> {
    this.take(id);
  }

  async dueAtMany(ids: readonly string[]): Promise<Array<number | null>> {
    return ids.map((id) => this.#dueAt.get(id) ?? null);
  }

  async dueAt(id: string): Promise<number | null> {
    return this.#dueAt.get(id) ?? null;
  }

  async size(): Promise<number> {
    return this.#dueAt.size;
  }

  async earliestDueAtMs(): Promise<number | null> {
    let earliest: number | null = null;
    for (const dueAtMs of this.#dueAt.values()) {
      if (earliest === null || dueAtMs < earliest) earliest = dueAtMs;
    }
    return earliest;
  }
}
