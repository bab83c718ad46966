/**
 * What the bot records for Prometheus, as the few seams that record it see it: the payout
 * store's moves, the Payment API client, the Telegram transport, the Redis connection and
 * the loops' runner. Every label is a word from a closed set (a state, an operator, an
 * operation, a Bot API method, a status code): never a phone number, a name or an id.
 *
 * With metrics off the seams hold NO_METRICS, whose calls do nothing, so turning metrics
 * on or off never changes what the bot does.
 */
import type { PayoutEvent, PayoutState } from "../model/lifecycle.js";
import type { PayoutKind } from "../model/payout.js";

/** A payout's move, as the store made it (counted only when this call made it). */
export interface PayoutMove {
  /** The lifecycle event, or `create` for a new payout (awaiting_confirmation). */
  event: PayoutEvent | "create";
  to: PayoutState;
  kind: PayoutKind;
  operator: string;
  /** Whole XAF; added to the money paid when `to` is `success`. */
  amountXaf: number;
}

/** One attempt at the Payment API: its HTTP status, or how it failed without one. */
export interface PaymentAttempt {
  operation: string;
  /** "201", "429", "503"…, or a transport failure's kind ("timeout", "reset", "not-sent"…). */
  status: string;
  durationSeconds: number;
}

export interface Metrics {
  /** Whether anything is recorded (false for NO_METRICS): lets a seam skip its own timing. */
  readonly enabled: boolean;
  payoutMoved(move: PayoutMove): void;
  paymentAttempt(attempt: PaymentAttempt): void;
  /** An attempt that failed and is tried again after a pause. */
  paymentRetry(operation: string): void;
  /** A Bot API call that failed: its error code ("429", "403"…) or "timeout"/"network". */
  telegramError(method: string, code: string): void;
  /** One Redis command as the client saw it, from send to answer. */
  redisCommand(command: string, durationSeconds: number): void;
  /** A loop's round: how late it started after it was due, and whether it failed. */
  loopRound(loop: string, lagSeconds: number, failed: boolean): void;
}

function ignore(): void {}

/** Records nothing: metrics are off. */
export const NO_METRICS: Metrics = {
  enabled: false,
  payoutMoved: ignore,
  paymentAttempt: ignore,
  paymentRetry: ignore,
  telegramError: ignore,
  redisCommand: ignore,
  loopRound: ignore,
};
