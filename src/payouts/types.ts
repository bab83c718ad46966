/**
 * The shapes the payout steps take and give: what they need of the Payment API, their
 * options, and one result type per operation (each outcome a case the caller must handle).
 */
import type { Logger } from "../logger.js";
import type { Actor } from "../model/audit.js";
import type { Locale } from "../model/locale.js";
import type { AmountProblem } from "../model/money.js";
import type { TelecomOperator } from "../model/payment-terms.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import type { OperatorHint, PhoneProblem } from "../model/phone.js";
import type { Role } from "../model/roles.js";
import type { SendOptions } from "../payments/client-slots.js";
import type { PaymentClientError } from "../payments/errors.js";
import type { AvailabilityEntry, Payment, PaymentRequest, UserInfo } from "../payments/schemas.js";
import type { Stores } from "../store/types.js";

/** What the payout steps need of the Payment API client (PaymentClient fits it). */
export interface PaymentGateway {
  collect(request: PaymentRequest, send?: SendOptions): Promise<Payment>;
  disburse(request: PaymentRequest, send?: SendOptions): Promise<Payment>;
  /** Takes a rate-limit slot now for a request sent at once (see SendOptions.slotTaken). */
  takeSlot?(): Promise<boolean>;
  getPayment(id: string): Promise<Payment>;
  getAvailability(): Promise<AvailabilityEntry[]>;
  getUserInfo(phone: string): Promise<UserInfo>;
}

export interface PayoutsOptions {
  gateway: PaymentGateway;
  stores: Stores;
  logger?: Logger;
  confirmationTtlSeconds: number;
  /** First poll after submission; the tracker backs off from there. */
  statusPollIntervalMs: number;
  /** How long an /availability answer is reused. Default 30 s. */
  availabilityCacheMs?: number;
  now?: () => number;
  /** Called after a step queued a notice in the outbox (to deliver it at once). */
  onNoticeQueued?: () => void;
}

/** What every payout step works with. */
export interface StepContext {
  gateway: PaymentGateway;
  stores: Stores;
  log: Logger;
  now: () => number;
}

export type PrepareFailure =
  | { reason: "bad_phone"; problem: PhoneProblem; operator?: OperatorHint }
  | { reason: "bad_amount"; problem: AmountProblem }
  | { reason: "operator_unavailable"; operator: TelecomOperator; kind: PayoutKind }
  | { reason: "no_account"; phone: string }
  | { reason: "api_error"; error: PaymentClientError };

export type PrepareResult = { ok: true; payout: Payout } | ({ ok: false } & PrepareFailure);

export interface PrepareInput {
  kind: PayoutKind;
  /** The initiator's role now (their id is `initiatorId`): the prompt is audited as theirs. */
  initiatorRole: Role;
  phone: string;
  amount: string;
  note?: string;
  initiatorId: number;
  chatId: number;
  locale: Locale;
}

/** A payout moved to `submitting` under `claimId`, by whoever claimed it: ready to send. */
export interface ClaimedPayout {
  payout: Payout;
  claimId: string;
  /** Who claimed it (the initiator's Confirm, an approver): the submission is theirs. */
  actor: Actor;
}

export type ClaimResult =
  | ({ outcome: "claimed" } & ClaimedPayout)
  | { outcome: "not_found" }
  | { outcome: "forbidden"; payout: Payout }
  | { outcome: "expired"; payout: Payout }
  /** Someone (a double tap, another replica) moved it first: nothing to do. */
  | { outcome: "already"; payout: Payout };

/** A claim that was not made, and why. */
export type NotClaimed = Exclude<ClaimResult, { outcome: "claimed" }>;

/** Confirm: the claim's outcome, and when claimed, the submission already under way. */
export type ConfirmResult =
  | NotClaimed
  | ({ outcome: "claimed"; submitted: Promise<SubmitResult> } & ClaimedPayout);

export type SubmitResult =
  | { outcome: "pending"; payout: Payout }
  | { outcome: "refused"; payout: Payout; error: PaymentClientError }
  | { outcome: "unknown"; payout: Payout }
  /** The payout left `submitting` before the request could leave: nothing was sent. */
  | { outcome: "not_sent"; payout: Payout };

export type CancelResult =
  | { outcome: "cancelled"; payout: Payout }
  | { outcome: "not_found" }
  | { outcome: "forbidden"; payout: Payout }
  | { outcome: "already"; payout: Payout };

export type SettleResult =
  | { outcome: "settled"; payout: Payout }
  | { outcome: "still_pending"; payout: Payout }
  | { outcome: "not_tracked"; payout: Payout | null };

export type ResolveResult =
  | { outcome: "resolved"; payout: Payout }
  | { outcome: "not_found" }
  | { outcome: "not_unknown"; payout: Payout }
  | { outcome: "payment_not_found" }
  | { outcome: "mismatch"; payout: Payout; payment: Payment }
  | { outcome: "payment_taken"; payout: Payout; payment: Payment }
  | { outcome: "api_error"; error: PaymentClientError };
