/**
 * The client's rate-limit slots, and how a payment request may be sent: with a slot taken
 * ahead (so it leaves at once), and with a last check run right before each attempt that
 * leaves after a wait.
 */
import { setMaxListeners } from "node:events";
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
  /**
   * Background work no person waits on (callback re-reads, status polls, availability
   * checks): each slot it takes leaves the client's `interactiveReserve` of the window free,
   * so a /pay (or Confirm, /status) arriving while background work fills its share still
   * finds a slot within the window.
   */
  background?: boolean;
}

/**
 * The client's close signal: every wait for a slot or a retry listens to it, and under a
 * busy batch dozens wait at once (each listener is removed when its wait ends), so Node's
 * warning at 11 listeners would be a false alarm.
 */
export function closingController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Takes a slot now if the limit allows: true when taken. A limiter that fails takes none. */
export async function takeSlotNow(limiter: RateLimiter | undefined): Promise<boolean> {
  if (!limiter) return true;
  const acquisition = await limiter.tryAcquire().catch(() => ({ granted: false }) as const);
  return acquisition.granted;
}

/** A wait for a slot with a `keepAlive` calls it (and asks the limiter again) this often. */
export const KEEP_ALIVE_EVERY_MS = 1_000;

/**
 * Waits for a slot, up to `maxWaitMs` (may be infinite): RateLimitedError past it (or when
 * `signal` aborts), LimiterUnavailableError when the limiter itself fails. With `leave`,
 * only a slot that leaves that many of the window to others (batch work leaves a share to
 * /pay). `keepAlive` is called at least every KEEP_ALIVE_EVERY_MS while waiting (batch work
 * renews its lease there); when it throws, the wait ends with that error.
 */
export async function waitForSlot(
  limiter: RateLimiter | undefined,
  operation: PaymentOperation,
  maxWaitMs: number,
  signal: AbortSignal,
  leave = 0,
  keepAlive?: () => Promise<void>,
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
    const napMs = keepAlive ? Math.min(waitMs, KEEP_ALIVE_EVERY_MS) : waitMs;
    await sleep(napMs, signal).catch(() => {
      throw new RateLimitedError(operation, waitMs);
    });
    await keepAlive?.();
  }
}
