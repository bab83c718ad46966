/**
 * Asking Redis again when a write did not get through. How hard to try depends on what is
 * at stake: a check before sending gives up quickly (nothing has left; the payer can try
 * again), while the payment id of a request that was answered must not be lost, so its
 * write is retried for as long as a failover or a network blip may last.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../logger.js";

export interface StoreRetryPolicy {
  /**
   * Stop asking when the pauses would add up to more than this (the last error is thrown).
   * Counted in planned pauses, not on the clock, so the number of tries is always the same.
   */
  deadlineMs: number;
  /** Pause after the first failure; doubled after each further one, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/** A few quick tries: for writes made before anything left. */
export const QUICK_RETRY: StoreRetryPolicy = { deadlineMs: 300, firstDelayMs: 50, maxDelayMs: 100 };

/**
 * Up to a minute: for the record of something that already happened (a payment id). A
 * Sentinel failover takes a few seconds; a minute covers it with room to spare.
 */
export const PERSISTENT_RETRY: StoreRetryPolicy = {
  deadlineMs: 60_000,
  firstDelayMs: 100,
  maxDelayMs: 5_000,
};

/** The pause before try number `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(policy: StoreRetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1));
}

/**
 * Runs `write` until it succeeds or the policy's deadline passes, calling `onRetry` before
 * each pause. Every try must be safe to repeat (the payout writes carry a claim id).
 */
export async function retryStoreWrite<T>(
  write: () => Promise<T>,
  policy: StoreRetryPolicy,
  onRetry: (error: unknown, attempt: number, delayMs: number) => void,
): Promise<T> {
  let pausedMs = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const delayMs = retryDelayMs(policy, attempt);
      if (pausedMs + delayMs > policy.deadlineMs) throw error;
      pausedMs += delayMs;
      onRetry(error, attempt, delayMs);
      await sleep(delayMs);
    }
  }
}

/** `retryStoreWrite` for one payout, each retry logged as a warning saying what was tried. */
export function retryPayoutWrite<T>(
  log: Logger,
  payoutId: string,
  what: string,
  write: () => Promise<T>,
  policy: StoreRetryPolicy = QUICK_RETRY,
): Promise<T> {
  return retryStoreWrite(write, policy, (error, attempt, retryInMs) =>
    log.warn({ payoutId, err: error, attempt, retryInMs }, `could not ${what}; asking again`),
  );
}
