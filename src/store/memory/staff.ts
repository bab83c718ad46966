/** Staff roles, their origins and grant times, in process memory. */
import type { Role } from "../../model/roles.js";
import { RoleSchema } from "../../model/roles.js";
import type { StaffMember, StaffOrigin } from "../../model/staff.js";
import { checkInput } from "../schemas.js";
import type { StaffStore } from "../types.js";

export class MemoryStaffStore implements StaffStore {
  readonly #roles = new Map<number, Role>();
  readonly #origins = new Map<number, StaffOrigin>();
  readonly #granted = new Map<number, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async get(userId: number): Promise<Role | null> {
    return this.#roles.get(userId) ?? null;
  }

  /** The member's role and grant time now (read inside a payout move, as the script does). */
  standing(userId: number): { role: Role; grantedAtMs?: number } | null {
    const role = this.#roles.get(userId);
    if (role === undefined) return null;
    const grantedAtMs = this.#granted.get(userId);
    return grantedAtMs === undefined ? { role } : { role, grantedAtMs };
  }

  async set(
    userId: number,
    role: Role,
    origin?: StaffOrigin,
    grantedAtMs = this.#now(),
  ): Promise<void> {
    const checked = checkInput(RoleSchema, role, "role");
    if (this.#roles.get(userId) !== checked) this.#granted.set(userId, grantedAtMs);
    this.#roles.set(userId, checked);
    if (origin) this.#origins.set(userId, structuredClone(origin));
    else this.#origins.delete(userId);
  }

  async remove(userId: number, origin?: StaffOrigin): Promise<boolean> {
    if (origin) this.#origins.set(userId, { ...structuredClone(origin), removed: true });
    else this.#origins.delete(userId);
    this.#granted.delete(userId);
    return this.#roles.delete(userId);
  }

  async origin(userId: number): Promise<StaffOrigin | null> {
    const origin = this.#origins.get(userId);
    return origin ? structuredClone(origin) : null;
  }

  /** Every member, by user id. */
  async list(): Promise<StaffMember[]> {
    return [...this.#roles]
      .map(([userId, role]) => {
        const origin = this.#origins.get(userId);
        const grantedAtMs = this.#granted.get(userId);
        return {
          userId,
          role,
          ...(origin ? { origin: structuredClone(origin) } : {}),
          ...(grantedAtMs === undefined ? {} : { grantedAtMs }),
        };
      })
      .sort((a, b) => a.userId - b.userId);
  }
}
