/**
 * Every error a store throws, each carrying facts: the store cannot take this now
 * (StoreUnavailableError), a stored record that does not decode (CorruptRecordError), a
 * payout id already stored (PayoutExistsError).
 *
 * Recognizes "the store cannot take this now" errors from ioredis, so the bot can tell users
 * it cannot take payouts right now instead of reporting an internal error: the server is
 * unreachable, still loading, or refusing writes (out of memory, a read-only replica after a
 * failover, a failed disk save, too few replicas).
 */
const UNAVAILABLE_PATTERNS = [
  /enableOfflineQueue/i,
  /Connection is closed/i,
  /Command timed out/i,
  /ECONNREFUSED/,
  /ECONNRESET/,
  /Reached the max retries per request limit/i,
  /LOADING/,
  /^OOM /,
  /^READONLY /,
  /^MISCONF /,
  /^NOREPLICAS /,
  /^MASTERDOWN /,
];

/** The store refuses a write it could not make as durable as it is configured to. */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreUnavailableError";
  }
}

/**
 * True for such an error, or one caused by such an error (the payment client's rate limiter
 * lives in Redis: its failure is the store's, whatever error wraps it).
 */
export function isStoreUnavailableError(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (cause.name === "MaxRetriesPerRequestError") return true;
    if (cause instanceof StoreUnavailableError) return true;
    const { message } = cause;
    if (UNAVAILABLE_PATTERNS.some((pattern) => pattern.test(message))) return true;
    cause = cause.cause;
  }
  return false;
}

/** A stored record that does not decode to a valid Payout. Never guessed around. */
export class CorruptRecordError extends Error {
  readonly payoutId: string;
  readonly problems: readonly string[];

  constructor(payoutId: string, problems: readonly string[]) {
    super(`stored payout ${payoutId} is corrupt: ${problems.join("; ")}`);
    this.name = "CorruptRecordError";
    this.payoutId = payoutId;
    this.problems = problems;
  }
}

/** `create` was given an id that is already stored: nothing was written. */
export class PayoutExistsError extends Error {
  readonly payoutId: string;

  constructor(payoutId: string) {
    super(`payout ${payoutId} already exists`);
    this.name = "PayoutExistsError";
    this.payoutId = payoutId;
  }
}
