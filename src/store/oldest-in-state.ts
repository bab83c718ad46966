/**
 * What needs a person, cheaply (the Overview's lists): of the payouts now in a state, how
 * many there are and the oldest few, chosen from a handful of fields of each rather than
 * whole records, so that thousands waiting cost one light read. Shared by both stores.
 */
import type { Payout } from "../model/payout.js";

export interface OldestInStateOptions {
  /** How many of the oldest (by creation) to answer. */
  limit: number;
  /** Only this initiator's. */
  userId?: number;
  /** Only those whose request left (or, never sent, that were created) before this. */
  leftBeforeMs?: number;
}

export type StateRow = Pick<Payout, "id" | "createdAtMs" | "sentAtMs" | "initiatorId">;

/** How many of `rows` pass the options, and the ids of the `limit` oldest, oldest first. */
export function pickOldest(
  rows: readonly StateRow[],
  options: OldestInStateOptions,
): { count: number; ids: string[] } {
  const kept = rows.filter(
    (row) =>
      (options.userId === undefined || row.initiatorId === options.userId) &&
      (options.leftBeforeMs === undefined ||
        (row.sentAtMs ?? row.createdAtMs) < options.leftBeforeMs),
  );
  kept.sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  return { count: kept.length, ids: kept.slice(0, options.limit).map((row) => row.id) };
}
