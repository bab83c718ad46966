/**
 * Payment status callbacks. A callback is only a hint: it is verified (when a key is
 * configured), parsed, matched to a payout, and then the payout is settled from what
 * `GET /payments/{id}` says — never from the callback body. So a forged "success" reaches
 * no chat, and duplicates are harmless (settling is a compare-and-set).
 *
 * Re-reads spend the API's shared rate limit, so callbacks cannot be allowed to drive them
 * freely: at most one re-read per payout every 5 s (a throttle) and at a time (a lease),
 * and at most a set number per minute across replicas (`rereadLimiter`). A callback over
 * any of them is acknowledged and left to the poller, which finds the status anyway.
 */

import type { KeyObject } from "node:crypto";
import { randomUUID } from "node:crypto";
import type { Logger } from "../logger.js";
import type { Payout } from "../model/payout.js";
import type { RateLimiter } from "../payments/rate-limiter.js";
import { type Payment, PaymentSchema } from "../payments/schemas.js";
import { verifyParts } from "../payments/signature.js";
import { callbackRereadName, type Stores } from "../store/types.js";
import { paymentMatches } from "./answer-check.js";
import type { Settlement } from "./settlement.js";

export interface CallbackRequest {
  body: string;
  pathAndQuery: string;
  signature: string | undefined;
  timestamp: string | undefined;
}

export interface CallbackResponse {
  status: number;
  body: { ok: boolean; error?: string };
}

export interface PaymentWebhookOptions {
  settlement: Settlement;
  stores: Stores;
  logger: Logger;
  /** Verifies X-Sig on callbacks when set. */
  publicKey?: KeyObject;
  /** Called after a payout was settled (to deliver its notification at once). */
  onSettled?: () => void;
  /** Caps callback-driven re-reads per minute, shared by every replica. None: no cap. */
  rereadLimiter?: RateLimiter;
}

/** How long one payout's callback re-read holds its lease (longer than any re-read takes). */
const REREAD_LEASE_MS = 30_000;

/**
 * One payout is re-read for callbacks at most once in this long: a payment that is still
 * pending stays so for a while, and a flood of callbacks for it would otherwise re-read it
 * as fast as each re-read ends, spending the cap every other payout shares.
 */
const REREAD_SPACING_MS = 5_000;

const OVER_CAP = "callback re-reads over the cap; left to polling";

export class PaymentWebhook {
  readonly #options: PaymentWebhookOptions;
  readonly #work = new Set<Promise<void>>();

  constructor(options: PaymentWebhookOptions) {
    this.#options = options;
  }

  /** Answers fast; the re-read and settlement run after the answer (see `idle`). */
  async receive(request: CallbackRequest): Promise<CallbackResponse> {
    const { publicKey, logger, stores } = this.#options;
    if (publicKey) {
      const problem = verifyParts({
        publicKey,
        signature: request.signature,
        timestamp: request.timestamp,
        method: "POST",
        pathAndQuery: request.pathAndQuery,
        body: request.body,
      });
      if (problem) {
        logger.warn({ problem }, "payment callback refused: bad signature");
        return { status: 401, body: { ok: false, error: `signature ${problem}` } };
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(request.body);
    } catch {
      return { status: 400, body: { ok: false, error: "body is not JSON" } };
    }
    const parsed = PaymentSchema.safeParse(json);
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "body"}: ${issue.message}`,
      );
      return { status: 400, body: { ok: false, error: `not a payment: ${problems.join("; ")}` } };
    }
    // The payout, the re-read's spacing, the cap, its lease and its request's slot, in one
    // step (one round trip), where the limiters are shared through the store.
    const owner = randomUUID();
    const cap = this.#options.rereadLimiter?.shared?.();
    const rereadSlot = this.#options.settlement.rereadSlot();
    const admission = await stores.callbacks.admit(parsed.data.id, {
      owner,
      spacingMs: REREAD_SPACING_MS,
      leaseMs: REREAD_LEASE_MS,
      ...(cap === undefined ? {} : { cap }),
      ...(rereadSlot === undefined ? {} : { request: rereadSlot }),
    });
    switch (admission.outcome) {
      case "unknown":
        // Only a callback we could verify may suggest anything to an admin.
        if (publicKey) await this.offerAsHint(parsed.data);
        return { status: 200, body: { ok: true } };
      // Only a pending payout can be settled; others need no re-read (and spend no slot).
      case "not_pending":
        return { status: 202, body: { ok: true } };
      case "spaced":
        logger.debug(
          { payoutId: admission.payout.id },
          "this payout was re-read for a callback just now",
        );
        return { status: 202, body: { ok: true } };
      case "leased":
        logger.info(
          { payoutId: admission.payout.id },
          "a callback re-read of this payout is under way",
        );
        return { status: 202, body: { ok: true } };
      case "over_cap":
        logger.warn({ payoutId: admission.payout.id }, OVER_CAP);
        return { status: 202, body: { ok: true } };
      case "admitted":
        break;
    }
    const { payout, requestSlot } = admission;
    // A cap the store could not take a slot of is asked on its own.
    if (cap === undefined && !(await this.withinCap(payout, owner))) {
      return { status: 202, body: { ok: true } };
    }
    this.track(this.settle(payout, parsed.data.id, owner, requestSlot === true));
    return { status: 202, body: { ok: true } };
  }

  /**
   * A callback for an id we do not know may be the payment of an `unknown` payout whose
   * creation answer was lost. When exactly one such payout has its number and amount, the
   * id is kept on it as a hint for the admin; nothing is settled from it.
   */
  private async offerAsHint(payment: Payment): Promise<void> {
    const { stores, logger } = this.#options;
    const candidates = (await stores.payouts.listInState("unknown")).filter((payout) =>
      paymentMatches(payment, payout),
    );
    const [match] = candidates;
    if (match && candidates.length === 1) {
      await stores.payouts.update(match.id, { candidatePaymentId: payment.id });
      logger.warn(
        { payoutId: match.id, paymentId: payment.id },
        "a callback names a payment that may be this unknown payout's; shown to admins",
      );
      return;
    }
    logger.info({ paymentId: payment.id }, "payment callback for an id we do not know; ignored");
  }

  /**
   * Within the per-minute cap of callback re-reads (every replica's): else the lease this
   * callback took is given back and the payout left to polling.
   */
  private async withinCap(payout: Payout, owner: string): Promise<boolean> {
    const { stores, logger, rereadLimiter } = this.#options;
    const slot = rereadLimiter ? await rereadLimiter.tryAcquire() : { granted: true };
    if (slot.granted) return true;
    await stores.leases.release(callbackRereadName(payout.id), owner);
    logger.warn({ payoutId: payout.id }, OVER_CAP);
    return false;
  }

  private async settle(
    payout: Payout,
    paymentId: string,
    owner: string,
    slotTaken: boolean,
  ): Promise<void> {
    const { settlement, logger, onSettled, stores } = this.#options;
    const payoutId = payout.id;
    let settled = false;
    try {
      const result = await settlement.settle(payout, { slotTaken });
      logger.info({ payoutId, paymentId, outcome: result.outcome }, "payment callback handled");
      settled = result.outcome === "settled";
      if (settled) onSettled?.();
    } catch (error) {
      // The poller will get to it: a failed re-read loses nothing.
      logger.warn({ err: error, payoutId }, "could not re-read the payment after a callback");
    } finally {
      // A settled payout is never re-read again (only a pending one is): its lease guards
      // nothing now and is left to expire, which saves a round trip on every settlement.
      if (!settled) {
        await stores.leases.release(callbackRereadName(payoutId), owner).catch(() => {});
      }
    }
  }

  private track(work: Promise<void>): void {
    this.#work.add(work);
    void work.finally(() => this.#work.delete(work));
  }

  /** Resolves when the work started by earlier callbacks is done (shutdown, tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#work]);
  }
}
