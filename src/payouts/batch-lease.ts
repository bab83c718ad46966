/**
 * Keeping a batch's lease while its work waits on a full rate-limit window: a wait can last
 * up to a minute, longer than the lease, and the replica holding it must not lose it then.
 */

/** Called now and then during a long wait; throws to end the wait. */
export type KeepAlive = () => Promise<void>;

/** The batch's lease was taken by another replica while this one waited: stop here. */
export class BatchLeaseLostError extends Error {
  constructor(batchId: string) {
    super(`batch ${batchId}: the lease was lost while waiting for a rate-limit slot`);
    this.name = "BatchLeaseLostError";
  }
}

/**
 * A KeepAlive that renews the lease (`renew`, false when another replica holds it) at most
 * every `everyMs`; BatchLeaseLostError once it is lost.
 */
export function leaseKeeper(
  batchId: string,
  renew: () => Promise<boolean>,
  everyMs: number,
): KeepAlive {
  let renewedAtMs = performance.now();
  return async () => {
    if (performance.now() - renewedAtMs < everyMs) return;
    renewedAtMs = performance.now();
    if (!(await renew())) throw new BatchLeaseLostError(batchId);
  };
}
