/**
 * The shapes the payout steps take and give: what they need of the Payment API, their
 * options, and one result type per operation (each outcome a case the caller must handle).
 */

import type { Logger } from "../logger.js";
import type { ApprovalBand } from "../model/approval-rules.js";
import type { Actor } from "../model/audit.js";
import type { Locale } from "../model/locale.js";
import type { AmountProblem } from "../model/money.js";
import type { TelecomOperator } from "../model/payment-terms.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import type { OperatorHint, PhoneProblem } from "../model/phone.js";
import type { Role } from "../model/roles.js";
import type { UserProfile } from "../model/staff.js";
import type { SendOptions } from "../payments/client-slots.js";
import type { PaymentClientError, PaymentOperation } from "../payments/errors.js";
import type { SharedSlot } from "../payments/rate-limiter.js";
import type { AvailabilityEntry, Payment, PaymentRequest, UserInfo } from "../payments/schemas.js";
import type { Stores, TransitionResult } from "../store/types.js";
import type { PinHasher } from "./pin-hash.js";

/** What the payout steps need of the Payment API client (PaymentClient fits it). */
export interface PaymentGateway {
  collect(request: PaymentRequest, send?: SendOptions): Promise<Payment>;
  disburse(request: PaymentRequest, send?: SendOptions): Promise<Payment>;
  /** Takes a rate-limit slot now for a request sent at once (see SendOptions.slotTaken). */
  takeSlot?(): Promise<boolean>;
  /**
   * The limit as a store takes a slot of it in the same step as a write (a claim, a
   * callback's admission), for a request then sent with `slotTaken`; see PaymentClient.
   */
  sharedSlot?(options?: { background?: boolean }): SharedSlot | undefined;
  /**
   * Waits, without a bound, for a slot leaving `leave` of the window to others (batch work),
   * calling `keepAlive` now and then while it waits; see PaymentClient.
   */
  waitSlot?(
    operation: PaymentOperation,
    leave: number,
    keepAlive?: () => Promise<void>,
  ): Promise<void>;
  getPayment(id: string, send?: SendOptions): Promise<Payment>;
  getAvailability(send?: SendOptions): Promise<AvailabilityEntry[]>;
  getUserInfo(phone: string, send?: SendOptions): Promise<UserInfo>;
}

/**
 * What a payout must pass beyond its own checks (config/rules.ts): a second person at or
 * over a threshold, daily spending caps, and the window of the duplicate warning.
 */
export interface PayoutRules {
  /** Payouts and collections of this many XAF or more need an approver; undefined: none do. */
  approvalThresholdXaf: number | undefined;
  /** APPROVAL_RULES (X:1 for a bare threshold); absent: one approver from the threshold. */
  approvalBands?: readonly ApprovalBand[];
  /** How long a payout waits for an approver before it expires. */
  approvalTtlMs: number;
  /** The most one payer may send or collect in a day, in XAF; undefined: no cap. */
  payerDailyLimitXaf: number | undefined;
  /** The most everyone together may send or collect in a day, in XAF; undefined: no cap. */
  merchantDailyLimitXaf: number | undefined;
  /** The same amount to the same number within this long is warned of; 0: never. */
  duplicateWindowMs: number;
  /** The IANA zone whose calendar days the caps count (TIME_ZONE). */
  timeZone: string;
  /**
   * STEP_UP_THRESHOLD_XAF: payouts of this many XAF or more are confirmed and approved
   * only with the person's PIN (payouts/pin.ts); undefined or absent: no PIN asked.
   */
  stepUpThresholdXaf?: number | undefined;
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
  /** Called when a step made a batch the batch worker should start (a scheduled batch's run). */
  onBatchWork?: () => void;
  /** Approvals, spending caps and the duplicate warning; default: every one of them off. */
  rules?: PayoutRules;
  /** How step-up PINs are hashed; default argon2id (payouts/pin-hash.ts). */
  pinHasher?: PinHasher;
  /** Batch payouts: file limits, preview lifetime, the rate share; defaults in payouts.ts. */
  batch?: Partial<BatchSettings>;
  /** Schedules: SCHEDULE_* (the zone, thresholds and prompt lifetime come from the rest). */
  schedules?: {
    defaultTime: string;
    catchUpMs: number;
    retryMs: number;
    reminderMs: number;
  };
}

/** How batches are read and paid (BATCH_MAX_ROWS, BATCH_RATE_SHARE_PERCENT…). */
export interface BatchSettings {
  maxRows: number;
  maxBytes: number;
  /** How long a preview can be confirmed. */
  previewTtlMs: number;
  /** Rate-limit slots of each window a batch leaves to interactive /pay. */
  leave: number;
  /** PAYOUT_STUCK_AFTER_HOURS: a batch's summary is sent by then, rows pending or not. */
  stuckAfterMs: number;
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
  | { reason: "api_error"; error: PaymentClientError }
  | { reason: "over_limit"; over: OverLimit };

/** A request checked and made into a payout awaiting confirmation. */
export interface Drafted {
  payout: Payout;
  /** An earlier payout of the same amount to the same number, within the window. */
  duplicate?: Payout;
  /** First names (as Telegram gave them) of whom the prompt names: the duplicate's initiator. */
  names: Map<number, string>;
}

/** Preparation.prepare: drafted and stored, with the initiator's older prompt it retired. */
export type PrepareResult =
  | ({ outcome: "prepared"; replaced?: Payout } & Drafted)
  | ({ outcome: "refused" } & PrepareFailure);

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
  /** The number was given by a saved recipient's alias (see payouts/recipients.ts). */
  saved?: { alias: string; savedName: string; savedAtMs: number };
  /**
   * The initiator's profile as their update gives it (the access step has just remembered
   * it): a repeat of their own payout names them without a read of the store.
   */
  initiatorProfile?: UserProfile | undefined;
}

/** A payout moved to `submitting` under `claimId`, by whoever claimed it: ready to send. */
export interface ClaimedPayout {
  payout: Payout;
  claimId: string;
  /** Who claimed it (the initiator's Confirm, an approver): the submission is theirs. */
  actor: Actor;
  /**
   * The claim took its request's rate-limit slot and stamped the send time durably, in its
   * own step (an approval's): it was the last check, and the request leaves at once.
   */
  checked?: boolean;
}

export type ClaimResult =
  | ({ outcome: "claimed" } & ClaimedPayout)
  | { outcome: "not_found" }
  | { outcome: "forbidden"; payout: Payout }
  | { outcome: "expired"; payout: Payout }
  /** Someone (a double tap, another replica) moved it first: nothing to do. */
  | { outcome: "already"; payout: Payout }
  /** At or over the approval threshold: it now waits for one of `approvers` (user ids). */
  | { outcome: "approval_requested"; payout: Payout; approvers: number[] }
  /** It would pass a daily cap: refused, nothing reserved or sent. */
  | { outcome: "over_limit"; payout: Payout; over: OverLimit }
  /**
   * At or over STEP_UP_THRESHOLD_XAF and asked without the asker's PIN (a chat button, or
   * a forged press): nothing changed; it is confirmed in the Mini App, with the PIN.
   */
  | { outcome: "step_up_required"; payout: Payout };

/** Why an approver's press changed nothing. */
export type DecideRefusal =
  | { outcome: "not_found" }
  /**
   * Their role may not approve (now), it is their own payout, they got their role after it
   * was asked for (`too_new`), or its initiator may no longer pay (`initiator_gone`).
   */
  | {
      outcome: "forbidden";
      payout: Payout;
      why: "not_allowed" | "own_payout" | "too_new" | "initiator_gone";
    }
  /** Nobody decided in time: it expired (now, if this press found out). */
  | { outcome: "expired"; payout: Payout }
  /** Another approver decided first. */
  | { outcome: "already"; payout: Payout };

/** A claim that was not made, and why. */
export type NotClaimed = Exclude<ClaimResult, { outcome: "claimed" }>;

/** Confirm: the claim's outcome, and when claimed, the submission already under way. */
export type ConfirmResult =
  | NotClaimed
  | ({
      outcome: "claimed";
      submitted: Promise<SubmitResult>;
      /**
       * The payout as its record is about to say once the API accepted the request and its
       * answer passed the checks (pending, with its payment id), before that record is
       * written; undefined when it was not accepted. Resolves no later than `submitted`.
       */
      answered: Promise<Payout | undefined>;
    } & ClaimedPayout);
/** Approve: the payout claimed for its submission (send it at once), or why not. */
export type ApproveResult =
  | ({ outcome: "claimed" } & ClaimedPayout)
  | DecideRefusal
  /** Today's caps have no room for it (checked atomically with the approval); it waits on. */
  | { outcome: "over_limit"; payout: Payout; over: OverLimit }
  /**
   * It repeats `duplicate` (DUPLICATE_WINDOW_MINUTES), which the approver was not shown:
   * nothing was decided; the card is to show it, with "Approve anyway".
   */
  | { outcome: "duplicate"; payout: Payout; duplicate: Payout }
  /** At or over STEP_UP_THRESHOLD_XAF without the approver's PIN: nothing was decided. */
  | { outcome: "step_up_required"; payout: Payout }
  /** A signature short of its rule (APPROVAL_RULES) recorded: it waits on, nothing sent. */
  | { outcome: "signed"; payout: Payout; given: number; needed: number }
  /** This approver signed it already; nothing changed. */
  | { outcome: "already_signed"; payout: Payout };

export type RejectResult = { outcome: "rejected"; payout: Payout } | DecideRefusal;

/** The initiator's withdrawal of a request waiting for approval. */
export type WithdrawResult =
  | { outcome: "withdrawn"; payout: Payout }
  | { outcome: "not_found" }
  /** Not their request. */
  | { outcome: "forbidden"; payout: Payout }
  /** Decided (or expired) already. */
  | { outcome: "already"; payout: Payout };

/** The reason a rejecting approver gave afterwards. */
export type ReasonResult =
  | { outcome: "added"; payout: Payout }
  | { outcome: "not_found" }
  /** Not a payout this person rejected. */
  | { outcome: "not_yours"; payout: Payout }
  /** A reason was given already; the first one stands. */
  | { outcome: "already"; payout: Payout }
  | { outcome: "empty" };

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

export type LimitName = "payer" | "merchant";

/** Why an amount does not fit today, and what still does. */
export interface OverLimit {
  /** The cap it would pass (the payer's own is checked first). */
  limit: LimitName;
  capXaf: number;
  /** What that cap had counted today. */
  usedXaf: number;
  /** The most that still fits today under every cap. */
  leftXaf: number;
}

/** A compare-and-set that found the payout gone or already moved on by someone else. */
export function lostRace(
  result: Extract<TransitionResult, { ok: false }>,
): { outcome: "not_found" } | { outcome: "already"; payout: Payout } {
  // "throttled" only answers a move asked with a press (TransitionOptions.press): nothing done.
  return result.reason === "not_found" || result.reason === "throttled"
    ? { outcome: "not_found" }
    : { outcome: "already", payout: result.payout };
}
