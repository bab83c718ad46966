/**
 * A payment callback's admission in process memory, as lua/callback-admit.lua does it: the
 * payout by payment id, then (pending only) the spacing counted and the lease taken.
 */
import type { PayoutStore } from "../payout-store.js";
import {
  type CallbackAdmission,
  type CallbackGate,
  callbackRereadName,
  type LeaseStore,
  type ThrottleStore,
} from "../types.js";

export class MemoryCallbackGate implements CallbackGate {
  readonly #stores: { payouts: PayoutStore; throttles: ThrottleStore; leases: LeaseStore };

  constructor(stores: { payouts: PayoutStore; throttles: ThrottleStore; leases: LeaseStore }) {
    this.#stores = stores;
  }

  async admit(
    paymentId: string,
    options: { owner: string; spacingMs: number; leaseMs: number },
  ): Promise<CallbackAdmission> {
    const { payouts, throttles, leases } = this.#stores;
    const payout = await payouts.findByPaymentId(paymentId);
    if (!payout) return { outcome: "unknown" };
    if (payout.state !== "pending") return { outcome: "not_pending", payout };
    const name = callbackRereadName(payout.id);
    if (!(await throttles.take(name, 1, options.spacingMs))) return { outcome: "spaced", payout };
    if (!(await leases.acquire(name, options.owner, options.leaseMs))) {
      return { outcome: "leased", payout };
    }
    return { outcome: "admitted", payout };
  }
}
