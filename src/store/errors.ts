/**
 * Recognizes "the store is not reachable" errors from ioredis, so the bot can tell users it
 * cannot take payouts right now instead of reporting an internal error.
 */
const UNAVAILABLE_PATTERNS = [
  /enableOfflineQueue/i,
  /Connection is closed/i,
  /Command timed out/i,
  /ECONNREFUSED/,
  /ECONNRESET/,
  /Reached the max retries per request limit/i,
  /LOADING/,
];

export function isStoreUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  return UNAVAILABLE_PATTERNS.some((pattern) => pattern.test(error.message));
}
