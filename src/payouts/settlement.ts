/**
 * The end of a payout's life: the API itself reports a final status, and the payout takes
 * it. Webhook callbacks and status polls both end here; a callback is only a hint, so the
 * payment is always read again from the API first.
 */
import { settleEventFor } from "../model/lifecycle.js";
import type { Payout } from "../model/payout.js";
import { cleanRemark } from "../model/text.js";
import type { SharedSlot } from "../payments/rate-limiter.js";
import { paymentRemark } from "../payments/schemas.js";
import { finalStatusOf } from "./answer-check.js";
import type { SettleResult, StepContext } from "./types.js";

/** Statuses outside the spec's four logged at most this many per process. */
const UNKNOWN_STATUSES_KEPT = 100;

export class Settlement {
  readonly #context: StepContext;
  readonly #onSettled: (payout: Payout) => Promise<void>;
  /** Statuses outside the spec's four already logged (each once per process). */
  readonly #unknownStatuses = new Set<string>();

  /** `onSettled` runs after each payout settles (saved recipients' names); it never throws. */
  constructor(context: StepContext, onSettled: (payout: Payout) => Promise<void> = async () => {}) {
    this.#context = context;
    this.#onSettled = onSettled;
  }

  /**
   * Re-reads the payment from the API and settles the payout when the API itself reports
   * a final status. Give the payout itself when it was just read (the webhook found it by
   * payment id) to save reading it again; a stale copy is harmless, the move is a
   * compare-and-set. `slotTaken`: the re-read's rate-limit slot was taken already (with a
   * callback's admission, from `rereadSlot`), so the request leaves at once.
   */
  async settle(
    payoutOrId: string | Payout,
    options: { slotTaken?: boolean } = {},
  ): Promise<SettleResult> {
    const { gateway, stores, log, now } = this.#context;
    const payout =
      typeof payoutOrId === "string" ? await stores.payouts.get(payoutOrId) : payoutOrId;
    if (payout?.state !== "pending" || !payout.paymentId) {
      return { outcome: "not_tracked", payout };
    }
    // Callbacks and polls: background work, leaving the interactive share of the limit.
    const slotTaken = options.slotTaken === true;
    const payment = await gateway.getPayment(payout.paymentId, { background: true, slotTaken });
    if (payment.id !== payout.paymentId) {
      throw new Error(`asked for payment ${payout.paymentId}, the API answered ${payment.id}`);
    }
    const status = finalStatusOf(payment);
    if (!status) {
      this.#noteUnknownStatus(payment.status);
      return { outcome: "still_pending", payout };
    }
    const payoutId = payout.id;
    const settledAtMs = now();
    // A saved number's last-paid time goes with a paid disbursement's move (no round trip).
    const notePaid =
      payout.kind === "disbursement" ? { phone: payout.phone, atMs: settledAtMs } : undefined;
    const result = await stores.payouts.transition(
      payoutId,
      settleEventFor(status),
      {
        apiStatus: status,
        fee: payment.fee ?? payout.fee,
        settledAtMs,
        // Why it failed, when the API says: the payer reads it with the outcome.
        apiRemark: status === "success" ? undefined : cleanRemark(paymentRemark(payment)),
      },
      { untrack: true, ...(notePaid ? { notePaid } : {}) },
    );
    if (!result.ok) {
      return {
        outcome: "not_tracked",
        payout:
          result.reason === "not_found" || result.reason === "throttled" ? null : result.payout,
      };
    }
    log.info({ payoutId, paymentId: payment.id, status: payment.status }, "payout settled");
    await this.#onSettled(result.payout);
    return { outcome: "settled", payout: result.payout };
  }

  /**
   * The limit a re-read's slot is taken from in a store's own step (a callback's admission),
   * leaving the interactive reserve as every re-read does; undefined when not shared.
   */
  rereadSlot(): SharedSlot | undefined {
    return this.#context.gateway.sharedSlot?.({ background: true });
  }

  /** A status outside the spec's four keeps the payout pending; it is logged once. */
  #noteUnknownStatus(status: string | undefined): void {
    const key = status ?? "(none)";
    if (status === "pending" || this.#unknownStatuses.has(key)) return;
    if (this.#unknownStatuses.size < UNKNOWN_STATUSES_KEPT) this.#unknownStatuses.add(key);
    this.#context.log.warn(
      { status: key },
      "the API reported a status we do not know; still pending",
    );
  }
}
