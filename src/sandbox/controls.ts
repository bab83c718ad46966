/**
 * The test controls of a running sandbox, in one place: the handle's methods and the
 * `/_sandbox/` admin routes both call these, so the two can never disagree.
 */

import type { CallbackAttempt, CallbackSender } from "./callbacks.js";
import type { Fault, FaultQueue } from "./faults.js";
import { type ResolvedSandboxOptions, requireNonNegative } from "./options.js";
import type { SlidingWindowLimiter } from "./rate-limit.js";
import type { RecordedRequest, RequestLog } from "./requests.js";
import type { PaymentStatus, PaymentType, TelecomOperator, UserInfo } from "./spec.js";
import type { SandboxAvailabilityEntry, SandboxPayment, SandboxState } from "./state.js";

/** Everything a sandbox is made of. */
export interface SandboxParts {
  options: ResolvedSandboxOptions;
  state: SandboxState;
  faults: FaultQueue;
  requests: RequestLog;
  limiter: SlidingWindowLimiter;
  callbacks: CallbackSender;
  publicKeyPem: string;
}

/** What `GET /_sandbox/state` shows. */
export interface SandboxSnapshot {
  balance: number;
  collectionsEnabled: boolean;
  disbursementsEnabled: boolean;
  settleDelayMs: number;
  callbackUrl: string | null;
  availability: SandboxAvailabilityEntry[];
  pendingFaults: number;
  recordedRequests: number;
  payments: SandboxPayment[];
}

export interface SandboxControls {
  getPayment(id: string): SandboxPayment | undefined;
  /**
   * Sets the status (no money moves), and the description when one is given (what the
   * service may say about a failure), and reports a final one; `undefined` for an unknown id.
   */
  forceStatus(id: string, status: PaymentStatus, description?: string): SandboxPayment | undefined;
  /** `"OPERATIONAL"` or anything else, such as `"SUSPENDED"` (new payments then get 403). */
  setAvailability(operator: TelecomOperator, type: PaymentType, status: string): void;
  setCollectionsEnabled(enabled: boolean): void;
  setDisbursementsEnabled(enabled: boolean): void;
  injectFault(fault: Fault): void;
  setCallbackUrl(url: string | undefined): void;
  /** Applies to payments created from now on. */
  setSettleDelayMs(ms: number): void;
  /** Merchant balance in XAF. */
  setBalance(amount: number): void;
  /**
   * The number (12 digits, 237 first) is now registered to `name` (null: no account any
   * more), for userinfo and new payments, until reset.
   */
  setRegisteredName(phone: string, name: UserInfo | null): void;
  /** Back to the initial state: payments, balance, faults, switches, counters, callbacks. */
  reset(): void;
  recordedRequests(): readonly RecordedRequest[];
  callbackAttempts(): readonly CallbackAttempt[];
  /** Balance, switches, availability, payments, as `GET /_sandbox/state` shows them. */
  snapshot(): SandboxSnapshot;
}

export function createControls(parts: SandboxParts): SandboxControls {
  const { state, faults, requests, limiter, callbacks } = parts;
  return {
    getPayment: (id) => state.getPayment(id),
    forceStatus: (id, status, description) => state.forceStatus(id, status, description),
    setAvailability: (operator, type, status) => state.setAvailability(operator, type, status),
    setCollectionsEnabled: (enabled) => state.setCollectionsEnabled(enabled),
    setDisbursementsEnabled: (enabled) => state.setDisbursementsEnabled(enabled),
    injectFault: (fault) => faults.add(fault),
    setCallbackUrl: (url) => {
      // Refuse a bad URL now rather than at the first final status.
      if (url !== undefined) new URL(url);
      state.setCallbackUrl(url);
    },
    setSettleDelayMs: (ms) => {
      requireNonNegative("settleDelayMs", ms);
      state.setSettleDelayMs(ms);
    },
    setBalance: (amount) => {
      requireNonNegative("balance", amount);
      state.setBalance(amount);
    },
    setRegisteredName: (phone, name) => {
      if (!/^237\d{9}$/.test(phone)) throw new RangeError(`not a normalized number: ${phone}`);
      state.setRegisteredName(phone, name);
    },
    reset: () => {
      state.reset();
      faults.clear();
      requests.clear();
      limiter.clear();
      callbacks.cancelAll();
      callbacks.clearAttempts();
    },
    recordedRequests: () => requests.entries,
    callbackAttempts: () => callbacks.attempts,
    snapshot: () => ({
      balance: state.balance,
      collectionsEnabled: state.collectionsEnabled,
      disbursementsEnabled: state.disbursementsEnabled,
      settleDelayMs: state.settleDelayMs,
      callbackUrl: state.callbackUrl ?? null,
      availability: state.availabilityEntries(),
      pendingFaults: faults.size,
      recordedRequests: requests.entries.length,
      payments: state.payments(),
    }),
  };
}
