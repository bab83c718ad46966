/**
 * The merchant's world inside the sandbox: payments, balance, operator availability, the
 * collection/disbursement switches, and the timers that settle pending payments.
 *
 * Money rules (our choice; the spec is silent):
 * - fee: disbursement 1 %, collection 2 %, both rounded up to the next whole XAF;
 * - a disbursement draws `amount + fee` from the balance when it settles; if the balance
 *   is short at that moment it ends `failed` and nothing is drawn;
 * - a successful collection adds `amount - fee`;
 * - `forceStatus` is a test override: it sets the status and moves no money.
 */
import { randomUUID } from "node:crypto";
import { SANDBOX_CURRENCY, SANDBOX_MERCHANT_ID } from "./options.js";
import { outcomeOf, registeredNameOf } from "./scripted.js";
import {
  OPERATIONAL,
  PAYMENT_TYPES,
  type PaymentStatus,
  type PaymentType,
  TELECOM_OPERATORS,
  type TelecomOperator,
  type UserInfo,
} from "./spec.js";

/**
 * A payment as the sandbox stores and returns it: every field of spec section 2.1, in the
 * order of the real service's published examples. `description` is null, as in the real
 * service's 201 examples: a request has no field to give one.
 */
export type SandboxPayment = {
  amount: number;
  createdAt: string;
  currency: string;
  description: string | null;
  fee: number;
  id: string;
  merchantId: number;
  paymentType: PaymentType;
  phoneNumber: string;
  status: PaymentStatus;
  telecomOperator: TelecomOperator;
  updatedAt: string;
};

export type AvailabilityStatus = string;

export interface SandboxAvailabilityEntry {
  operator: TelecomOperator;
  operation: { type: PaymentType; status: AvailabilityStatus };
}

export interface NewPayment {
  paymentType: PaymentType;
  amount: number;
  phoneNumber: string;
  telecomOperator: TelecomOperator;
}

export interface SandboxStateInit {
  initialBalance: number;
  settleDelayMs: number;
  callbackUrl: string | undefined;
  /** Called with a copy of the payment each time it reaches a final status. */
  onFinal: (payment: SandboxPayment) => void;
}

/** 1 % for disbursements, 2 % for collections, rounded up to a whole XAF. */
export function feeOf(paymentType: PaymentType, amount: number): number {
  return paymentType === "disbursement" ? Math.ceil(amount / 100) : Math.ceil(amount / 50);
}

function availabilityKey(operator: TelecomOperator, type: PaymentType): string {
  return `${operator}/${type}`;
}

export class SandboxState {
  readonly #init: SandboxStateInit;
  readonly #payments = new Map<string, SandboxPayment>();
  /** The merchant account each payment was made with (api.ts: another's is not found). */
  readonly #accounts = new Map<string, string>();
  readonly #settleTimers = new Map<string, NodeJS.Timeout>();
  readonly #availability = new Map<string, AvailabilityStatus>();
  /** Registered names changed by a test (null: the account is gone), over the scripted ones. */
  readonly #names = new Map<string, UserInfo | null>();
  #balance = 0;
  #collectionsEnabled = true;
  #disbursementsEnabled = true;
  #settleDelayMs = 0;
  #lastFinalAtMs = 0;
  #callbackUrl: string | undefined;

  constructor(init: SandboxStateInit) {
    this.#init = init;
    this.reset();
  }

  /** Back to the initial state; pending settlements are dropped. */
  reset(): void {
    this.stopTimers();
    this.#payments.clear();
    this.#accounts.clear();
    this.#names.clear();
    this.#balance = this.#init.initialBalance;
    this.#collectionsEnabled = true;
    this.#disbursementsEnabled = true;
    this.#settleDelayMs = this.#init.settleDelayMs;
    this.#callbackUrl = this.#init.callbackUrl;
    for (const operator of TELECOM_OPERATORS) {
      for (const type of PAYMENT_TYPES) {
        this.#availability.set(availabilityKey(operator, type), OPERATIONAL);
      }
    }
  }

  stopTimers(): void {
    for (const timer of this.#settleTimers.values()) clearTimeout(timer);
    this.#settleTimers.clear();
  }

  get balance(): number {
    return this.#balance;
  }
  get collectionsEnabled(): boolean {
    return this.#collectionsEnabled;
  }
  get disbursementsEnabled(): boolean {
    return this.#disbursementsEnabled;
  }
  get settleDelayMs(): number {
    return this.#settleDelayMs;
  }
  /** How many payments will settle by themselves (on their timer), not counting "stays pending" ones. */
  get settlingCount(): number {
    return this.#settleTimers.size;
  }
  /** When a payment last reached a final status (epoch ms; 0: never). */
  get lastFinalAtMs(): number {
    return this.#lastFinalAtMs;
  }
  get callbackUrl(): string | undefined {
    return this.#callbackUrl;
  }

  setBalance(amount: number): void {
    this.#balance = amount;
  }

  /** The name registered to this (valid, normalized) number now, or null without an account. */
  registeredName(phone: string): UserInfo | null {
    const changed = this.#names.get(phone);
    if (changed !== undefined) return changed === null ? null : { ...changed };
    return registeredNameOf(phone);
  }

  /** The number now belongs to `name` (null: it has no account any more). */
  setRegisteredName(phone: string, name: UserInfo | null): void {
    this.#names.set(phone, name === null ? null : { ...name });
  }
  setCollectionsEnabled(enabled: boolean): void {
    this.#collectionsEnabled = enabled;
  }
  setDisbursementsEnabled(enabled: boolean): void {
    this.#disbursementsEnabled = enabled;
  }
  /** Applies to payments created from now on. */
  setSettleDelayMs(ms: number): void {
    this.#settleDelayMs = ms;
  }
  setCallbackUrl(url: string | undefined): void {
    this.#callbackUrl = url;
  }

  setAvailability(operator: TelecomOperator, type: PaymentType, status: AvailabilityStatus): void {
    this.#availability.set(availabilityKey(operator, type), status);
  }

  availabilityOf(operator: TelecomOperator, type: PaymentType): AvailabilityStatus {
    return this.#availability.get(availabilityKey(operator, type)) ?? OPERATIONAL;
  }

  /** The `GET /availability` body: mtn and orange × collection and disbursement. */
  availabilityEntries(): SandboxAvailabilityEntry[] {
    return TELECOM_OPERATORS.flatMap((operator) =>
      PAYMENT_TYPES.map((type) => ({
        operator,
        operation: { type, status: this.availabilityOf(operator, type) },
      })),
    );
  }

  /** A copy, so callers cannot change the stored payment. */
  getPayment(id: string): SandboxPayment | undefined {
    const payment = this.#payments.get(id);
    return payment ? { ...payment } : undefined;
  }

  /** The account a payment was made with; undefined for an id never made. */
  accountOfPayment(id: string): string | undefined {
    return this.#accounts.get(id);
  }

  payments(): SandboxPayment[] {
    return [...this.#payments.values()].map((payment) => ({ ...payment }));
  }

  /** Stores a new `pending` payment and schedules its scripted ending. Returns a copy. */
  createPayment(request: NewPayment, account = "default"): SandboxPayment {
    const now = new Date().toISOString();
    const payment: SandboxPayment = {
      amount: request.amount,
      createdAt: now,
      currency: SANDBOX_CURRENCY,
      description: null,
      fee: feeOf(request.paymentType, request.amount),
      id: randomUUID(),
      merchantId: SANDBOX_MERCHANT_ID,
      paymentType: request.paymentType,
      phoneNumber: request.phoneNumber,
      status: "pending",
      telecomOperator: request.telecomOperator,
      updatedAt: now,
    };
    this.#payments.set(payment.id, payment);
    this.#accounts.set(payment.id, account);
    if (outcomeOf(payment.phoneNumber) !== "pending") {
      const timer = setTimeout(() => this.#settle(payment.id), this.#settleDelayMs);
      this.#settleTimers.set(payment.id, timer);
    }
    return { ...payment };
  }

  /**
   * Sets a status as-is (no money moves), and the description when given, cancels its
   * settlement, reports a final one.
   */
  forceStatus(id: string, status: PaymentStatus, description?: string): SandboxPayment | undefined {
    const payment = this.#payments.get(id);
    if (!payment) return undefined;
    this.#cancelSettlement(id);
    if (description !== undefined) payment.description = description;
    this.#finish(payment, status);
    return { ...payment };
  }

  #cancelSettlement(id: string): void {
    const timer = this.#settleTimers.get(id);
    if (timer) clearTimeout(timer);
    this.#settleTimers.delete(id);
  }

  #settle(id: string): void {
    this.#settleTimers.delete(id);
    const payment = this.#payments.get(id);
    if (payment?.status !== "pending") return;
    const outcome = outcomeOf(payment.phoneNumber);
    if (outcome === "failed" || outcome === "canceled") {
      this.#finish(payment, outcome);
      return;
    }
    if (payment.paymentType === "collection") {
      this.#balance += payment.amount - payment.fee;
      this.#finish(payment, "success");
      return;
    }
    const cost = payment.amount + payment.fee;
    if (this.#balance < cost) {
      this.#finish(payment, "failed");
      return;
    }
    this.#balance -= cost;
    this.#finish(payment, "success");
  }

  #finish(payment: SandboxPayment, status: PaymentStatus): void {
    payment.status = status;
    payment.updatedAt = new Date().toISOString();
    if (status === "pending") return;
    this.#lastFinalAtMs = Date.now();
    this.#init.onFinal({ ...payment });
  }
}
