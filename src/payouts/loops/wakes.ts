/**
 * Which of a merchant's loops a wake is for. Every write that gives a loop work wakes it on
 * every replica (store/redis/wakes.ts, lua/includes/wake.lua), naming the queue written
 * (store/keys.ts WAKE_QUEUES); a sweep (no queue) wakes them all, each reading once.
 */

/** A loop that runs its next round now when woken. */
export interface Wakeable {
  wake(): void;
}

export interface MerchantLoops {
  notifier: Wakeable;
  tracker: Wakeable;
  batchWorker: Wakeable;
  scheduler: Wakeable;
  approvalExpiry: Wakeable;
}

/** `queue` (undefined: every loop) → the loops that take from it. */
export function loopsFor(loops: MerchantLoops, queue: string | undefined): Wakeable[] {
  switch (queue) {
    case "outbox":
      return [loops.notifier];
    // A request that may strand: the tracker looks for stranded ones while any is sent.
    case "tracking":
    case "state:submitting":
      return [loops.tracker];
    case "batches:active":
      return [loops.batchWorker];
    case "schedules:due":
    case "schedules:sending":
      return [loops.scheduler];
    case "state:awaiting_approval":
      return [loops.approvalExpiry];
    case undefined:
      return Object.values(loops);
    default:
      return [];
  }
}
