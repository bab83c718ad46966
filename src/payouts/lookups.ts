/**
 * Read-only questions to the Payment API that payouts and staff ask: who a number belongs
 * to, which operators work now (cached briefly: every /pay asks), and a payment as the API
 * sees it.
 */

import type { TelecomOperator } from "../model/payment-terms.js";
import type { PayoutKind } from "../model/payout.js";
import { cleanLine, MAX_NAME_LENGTH } from "../model/text.js";
import {
  type AvailabilityEntry,
  OPERATIONAL,
  type Payment,
  type UserInfo,
} from "../payments/schemas.js";
import type { PaymentGateway } from "./types.js";

export interface LookupsOptions {
  gateway: PaymentGateway;
  now: () => number;
  /** How long an /availability answer is reused. Default 30 s. */
  availabilityCacheMs?: number;
}

export class Lookups {
  readonly #gateway: PaymentGateway;
  readonly #now: () => number;
  readonly #cacheMs: number;
  #availability: { entries: AvailabilityEntry[]; atMs: number } | undefined;

  constructor(options: LookupsOptions) {
    this.#gateway = options.gateway;
    this.#now = options.now;
    this.#cacheMs = options.availabilityCacheMs ?? 30_000;
  }

  /** The registered name for a number (the same check /pay makes). */
  async whois(phone: string): Promise<UserInfo> {
    const info = await this.#gateway.getUserInfo(phone);
    // Each part alone, cleaned like the full name: what the API sends is shown to staff.
    return {
      ...info,
      firstName: cleanLine(info.firstName, MAX_NAME_LENGTH) ?? "",
      lastName: cleanLine(info.lastName, MAX_NAME_LENGTH) ?? "",
    };
  }

  /**
   * Operator availability, cached for a short while (every /pay would otherwise ask).
   * `fresh`: ask the API now (and keep the answer): what is compared with the state last
   * seen must never be an old answer, or a change already seen would be undone.
   * `background`: no person waits (the periodic check), it leaves the interactive share.
   */
  async availability(
    options: { fresh?: boolean; background?: boolean } = {},
  ): Promise<AvailabilityEntry[]> {
    const cached = this.#availability;
    if (!options.fresh && cached && this.#now() - cached.atMs < this.#cacheMs) {
      return cached.entries;
    }
    const entries = await this.#gateway.getAvailability({ background: options.background });
    this.#availability = { entries, atMs: this.#now() };
    return entries;
  }

  /** Whether `operator` takes payments of `kind` right now (`background`: see availability). */
  async isOperational(
    operator: TelecomOperator,
    kind: PayoutKind,
    options: { background?: boolean } = {},
  ): Promise<boolean> {
    const entries = await this.availability(options);
    // A payout kind is named as the API's payment type ("disbursement", "collection").
    const entry = entries.find(
      (item) => item.operator === operator && item.operation.type === kind,
    );
    // An operator the API does not list is not known to be up: refuse rather than guess.
    return entry?.operation.status === OPERATIONAL;
  }

  /** Payment as the API reports it now (for /status). */
  async paymentStatus(paymentId: string): Promise<Payment> {
    return this.#gateway.getPayment(paymentId);
  }
}
