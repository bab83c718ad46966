/**
 * Keeping a batch's lease while its work waits on a full rate-limit window: a wait can last
 * up to a minute, longer than the lease, and the replica holding it must not lose it then.
 */

/** Called now and then during a long wait; throws to end the wait. */
export type KeepAlive = () => Promise<void>;

/**
 * The wait ended without a slot: the batch's lease was taken by another replica, or this
 * replica is stopping. The row is left as it was, for a later round (or the other replica).
 */
export class BatchWaitEndedError extends Error {
  constructor(batchId: string, why: "lease lost" | "stopping") {
    super(`batch ${batchId}: stopped waiting for a rate-limit slot (${why})`);
    this.name = "BatchWaitEndedError";
  }
}

/**
 * A KeepAlive that renews the lease (`renew`, false when another replica holds it) at most
 * every `everyMs`; BatchWaitEndedError once it is lost or `stopping` has aborted.
 */
export function leaseKeeper(
  batchId: string,
  renew: () => Promise<boolean>,
  everyMs: number,
  stopping: AbortSignal,
): KeepAlive {
  let renewedAtMs = performance.now();
  return async () => {
    if (stopping.aborted) throw new BatchWaitEndedError(batchId, "stopping");
    if (performance.now() - renewedAtMs < everyMs) return;
    renewedAtMs = performance.now();
    if (!(await renew())) throw new BatchWaitEndedError(batchId, "lease lost");
  };
}
