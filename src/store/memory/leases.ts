/** Named leases with an owner and an expiry on the injected clock, in process memory. */
import type { LeaseStore } from "../types.js";

export class MemoryLeaseStore implements LeaseStore {
  readonly #leases = new Map<string, { owner: string; expiresAtMs: number }>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const holder = this.#holder(name);
    if (holder !== null && holder !== owner) return false;
    this.#leases.set(name, { owner, expiresAtMs: this.#now() + ttlMs });
    return true;
  }

  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    if (this.#holder(name) !== owner) return false;
    this.#leases.set(name, { owner, expiresAtMs: this.#now() + ttlMs });
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    if (this.#holder(name) === owner) this.#leases.delete(name);
  }

  #holder(name: string): string | null {
    const lease = this.#leases.get(name);
    if (!lease || lease.expiresAtMs <= this.#now()) return null;
    return lease.owner;
  }
}
