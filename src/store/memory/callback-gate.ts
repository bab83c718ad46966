/**
 * A payment callback's admission in process memory, as lua/callback-admit.lua does it: the
 * payout by payment id, then (pending only) the spacing counted, the cap's slot, the lease
 * taken and the re-read's own slot.
 */
import type { PayoutStore } from "../payout-store.js";
import {
  type CallbackAdmission,
  type CallbackAdmitOptions,
  type CallbackGate,
  callbackRereadName,
  type LeaseStore,
  type ThrottleStore,
} from "../types.js";
import type { MemorySlotLogs } from "./slot-logs.js";

interface GateStores {
  payouts: PayoutStore;
  throttles: ThrottleStore;
  leases: LeaseStore;
  slots: MemorySlotLogs;
}

export class MemoryCallbackGate implements CallbackGate {
  readonly #stores: GateStores;

  constructor(stores: GateStores) {
    this.#stores = stores;
  }

  async admit(paymentId: string, options: CallbackAdmitOptions): Promise<CallbackAdmission> {
    const { payouts, throttles, leases, slots } = this.#stores;
    const payout = await payouts.findByPaymentId(paymentId);
    if (!payout) return { outcome: "unknown" };
    if (payout.state !== "pending") return { outcome: "not_pending", payout };
    const name = callbackRereadName(payout.id);
    if (!(await throttles.take(name, 1, options.spacingMs))) return { outcome: "spaced", payout };
    if (!(await leases.acquire(name, options.owner, options.leaseMs))) {
      return { outcome: "leased", payout };
    }
    // Over the cap: the lease just taken goes back, as the script never takes it.
    if (options.cap && !slots.take(options.cap)) {
      await leases.release(name, options.owner);
      return { outcome: "over_cap", payout };
    }
    if (!options.request) return { outcome: "admitted", payout };
    return { outcome: "admitted", payout, requestSlot: slots.take(options.request) };
  }
}
