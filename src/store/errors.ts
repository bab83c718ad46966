/**
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

export function isStoreUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  return UNAVAILABLE_PATTERNS.some((pattern) => pattern.test(error.message));
}
