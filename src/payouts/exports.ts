/**
 * What an /export leaves in the audit log: who took which rows out of the bot, for which
 * days, and how many. The file itself is made by csv/; the bot's feature asks this step to
 * record it, so that no feature writes to a store itself.
 */
import { actorFields, staffActor } from "../model/audit.js";
import type { StaffMember } from "../model/staff.js";
import type { StepContext } from "./types.js";

export interface ExportMade {
  what: "payouts" | "audit";
  /** The first and last day of the period, as YYYY-MM-DD in TIME_ZONE. */
  from: string;
  to: string;
  /** Rows written (0 when there was nothing to export). */
  rows: number;
}

export class ExportRecords {
  readonly #context: StepContext;

  constructor(context: StepContext) {
    this.#context = context;
  }

  /** Records one export made by `staff`. */
  async made(staff: Pick<StaffMember, "userId" | "role">, export_: ExportMade): Promise<void> {
    const { stores, now } = this.#context;
    await stores.audit.record({
      atMs: now(),
      ...actorFields(staffActor(staff)),
      action: "export",
      details: { what: export_.what, from: export_.from, to: export_.to, rows: export_.rows },
    });
  }
}
