/**
 * Starting many merchants' runtimes (app-merchants.ts): a few at a time, since a start is
 * mostly waiting (Telegram's getMe, the Payment API's check, Redis), and one after the other
 * took minutes for 200. A merchant that fails to start is named in the error.
 */
import { allBounded } from "./bounded-all.js";
import type { MerchantConfig } from "./config/merchants.js";
import { StartupError } from "./startup-checks.js";

/** Merchants started at once. */
export const STARTS_AT_ONCE = 8;

/**
 * Starts every merchant with `start`, at most `limit` at a time, and puts those started into
 * `into` in the file's order (the first answers strangers). On a failure no further merchant
 * is begun, those already begun finish (and are in `into`, for the caller to stop), and the
 * first failure is thrown as a StartupError naming its merchant.
 */
export async function startMerchants<R>(
  merchants: readonly MerchantConfig[],
  start: (merchant: MerchantConfig) => Promise<R>,
  into: Map<string, R>,
  limit = STARTS_AT_ONCE,
): Promise<void> {
  const outcomes = await allBounded(merchants, limit, start);
  for (const [index, outcome] of outcomes.entries()) {
    const merchant = merchants[index];
    if (merchant && outcome.status === "fulfilled") into.set(merchant.id, outcome.value);
  }
  for (const [index, outcome] of outcomes.entries()) {
    if (outcome.status !== "rejected") continue;
    const { reason } = outcome;
    const id = merchants[index]?.id;
    if (reason instanceof StartupError) {
      throw new StartupError(`Merchant ${id}: ${reason.problem}`, {
        cause: reason,
        ...(reason.fix === undefined ? {} : { fix: reason.fix }),
      });
    }
    const message = reason instanceof Error ? reason.message : String(reason);
    throw new StartupError(`Merchant ${id} did not start: ${message}`, { cause: reason });
  }
}
