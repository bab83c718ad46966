/**
 * How `STAFF` (the bootstrap list in the environment) and `/staff` changes combine, applied
 * at every start:
 *
 * - a member whose role, or removal, was last set with `/staff` keeps it: a restart never
 *   undoes a runtime change, whatever `STAFF` says about that user;
 * - every other `STAFF` entry is applied, and recorded as coming from `STAFF`;
 * - a member recorded as coming from `STAFF` who is no longer listed there is removed, so
 *   `STAFF` stays the source of truth for the members it brought in.
 */

import type { Logger } from "../logger.js";
import type { Role } from "../model/roles.js";
import type { StaffStore } from "../store/types.js";
import type { StaffChanges } from "./staff.js";

export interface BootstrapEntry {
  userId: number;
  role: Role;
}

/**
 * Applies `entries` (from `STAFF`) under the rules above, each change through `changes`
 * (audited; one that takes someone's standing to pay away ends what they had open, as
 * `/staff` does), reading `staff`; returns what it kept.
 */
export async function applyBootstrapStaff(
  staff: StaffStore,
  changes: StaffChanges,
  entries: readonly BootstrapEntry[],
  logger: Logger,
): Promise<{ applied: number; keptRuntime: number; removed: number }> {
  let applied = 0;
  let keptRuntime = 0;
  let removed = 0;
  for (const entry of entries) {
    const origin = await staff.origin(entry.userId);
    if (origin?.source === "runtime") {
      keptRuntime += 1;
      logger.info(
        { userId: entry.userId, removed: origin.removed === true },
        "STAFF entry left as /staff last set it",
      );
      continue;
    }
    await changes.set(entry.userId, entry.role, null);
    applied += 1;
  }
  const listed = new Set(entries.map((entry) => entry.userId));
  for (const member of await staff.list()) {
    if (member.origin?.source === "env" && !listed.has(member.userId)) {
      await changes.remove(member.userId, null);
      removed += 1;
    }
  }
  return { applied, keptRuntime, removed };
}
