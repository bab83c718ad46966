/**
 * The gauges' reading at a scrape, from what the stores already keep: the state sets'
 * sizes, the outbox's and the tracking schedule's sizes and earliest due time, the events'
 * waiting set, the active batches' cursors, the rate limiter's window and the durability
 * plan. A few O(1) reads (the active batches are a handful), started together.
 */
import type { DurabilityPlan } from "../store/redis/durability.js";
import type { Stores } from "../store/types.js";
import type { DurabilityState, GaugeReading } from "./prometheus.js";

export interface GaugeSources {
  stores: Stores;
  /** The Payment API's rate limiter, when it can say how full its window is. */
  rateLimit?: () => Promise<{ used: number; limit: number }>;
  /** The signed events' backlog; absent when events are off. */
  events?: () => Promise<{ waiting: number; oldestWaitingMs: number | undefined }>;
  /** The durable-writes plan now; absent when REDIS_DURABILITY is off (or no Redis). */
  durability?: () => DurabilityPlan;
}

/** What the plan means for a write: waited for by a replica, the AOF, nothing, or lost. */
export function durabilityState(plan: DurabilityPlan | undefined): DurabilityState {
  if (!plan) return "off";
  if (plan.replicaLost) return "lost";
  if (plan.steps.includes("WAIT")) return "replica";
  if (plan.steps.includes("WAITAOF")) return "aof";
  return "none";
}

/** Reads every gauge of GaugeReading from `sources`. */
export function gaugeReader(sources: GaugeSources): () => Promise<GaugeReading> {
  const { stores } = sources;
  return async () => {
    const [inState, outboxSize, outboxDue, tracking, events, batchRowsLeft, rateLimit] =
      await Promise.all([
        stores.payouts.countInStates(),
        stores.outbox.size(),
        stores.outbox.earliestDueAtMs(),
        stores.tracking.size(),
        sources.events?.(),
        batchRows(stores),
        sources.rateLimit?.(),
      ]);
    return {
      payoutsInState: Object.fromEntries(inState),
      outbox: { size: outboxSize, oldestDueAtMs: outboxDue },
      tracking,
      events,
      batchRowsLeft,
      rateLimit,
      durability: durabilityState(sources.durability?.()),
    };
  };
}

/** Rows still to check (`checking`) and still to pay (`running`), over the active batches. */
async function batchRows(stores: Stores): Promise<{ checking: number; paying: number }> {
  const ids = await stores.batches.active();
  const batches = await Promise.all(ids.map((id) => stores.batches.get(id)));
  let checking = 0;
  let paying = 0;
  for (const batch of batches) {
    if (batch?.state === "checking") checking += batch.rowCount - batch.checkedRows;
    if (batch?.state === "running") paying += batch.rowCount - batch.doneRows;
  }
  return { checking, paying };
}
