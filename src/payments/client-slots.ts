/**
 * The client's rate-limit slots, and how a payment request may be sent: with a slot taken
 * ahead (so it leaves at once), and with a last check run right before each attempt that
 * leaves after a wait.
 */
import { LimiterUnavailableError, type PaymentOperation, RateLimitedError } from "./errors.js";
import type { RateLimiter } from "./rate-limiter.js";
import { sleep } from "./retry.js";

/** How a payment request (`disburse`, `collect`) is sent. */
export interface SendOptions {
  /** A rate-limit slot already taken for the first attempt (`takeSlot`): it leaves at once. */
  slotTaken?: boolean;
  /**
   * Run right before every attempt but a first one whose slot was taken ahead: the caller's
   * last chance to stop a request that has waited (for a slot, or to be retried). When it
   * throws, the request does not leave, and the error is thrown as it is.
   */
  beforeSend?: () => Promise<void>;
}

/** Takes a slot now if the limit allows: true when taken. A limiter that fails takes none. */
export async function takeSlotNow(limiter: RateLimiter | undefined): Promise<boolean> {
  if (!limiter) return true;
  const acquisition = await limiter.tryAcquire().catch(() => ({ granted: false }) as const);
  return acquisition.granted;
}

/**
 * Waits for a slot, up to `maxWaitMs`: RateLimitedError past it (or when `signal` aborts),
 * LimiterUnavailableError when the limiter itself fails. With `leave`, only a slot that
 * leaves that many of the window to others (batch work leaves a share to /pay).
 */
export async function waitForSlot(
  limiter: RateLimiter | undefined,
  operation: PaymentOperation,
  maxWaitMs: number,
  signal: AbortSignal,
  leave = 0,
): Promise<void> {
  if (!limiter) return;
  const giveUpAtMs = performance.now() + maxWaitMs;
  for (;;) {
    const acquisition = await limiter.tryAcquire(leave).catch((error: unknown) => {
      throw new LimiterUnavailableError(operation, error);
    });
    if (acquisition.granted) return;
    const waitMs = Math.max(1, acquisition.retryInMs);
    if (performance.now() + waitMs > giveUpAtMs || signal.aborted) {
      throw new RateLimitedError(operation, waitMs);
    }
    await sleep(waitMs, signal).catch(() => {
      throw new RateLimitedError(operation, waitMs);
    });
  }
}
