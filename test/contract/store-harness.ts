/** How the store contract gets stores to test, from each implementation's test file. */
import type { Stores } from "../../src/store/types.js";
import { perTest } from "../support/per-test.js";

export interface StoreHarness {
  stores: Stores;
  /** Drops everything the stores wrote and closes them. */
  cleanup: () => Promise<void>;
  /** Lets `ms` pass for the stores' expiries: a real wait for Redis, a clock step for memory. */
  elapse: (ms: number) => Promise<void>;
  /**
   * Where a test may name keys of its own (a shared limit's): the stores' key prefix, so that
   * on a Redis Cluster they share the merchant's slot as the bot's limits do. Default "".
   */
  keyPrefix?: string;
}

export type MakeStores = (options: {
  retentionMs: number;
  approvalCardTtlMs?: number;
}) => Promise<StoreHarness>;

/**
 * Fresh stores (`makeStores({ retentionMs })`) for each test of the enclosing describe,
 * cleaned up after it. The object returned reads through to the running test's stores.
 */
export function storesPerTest(
  makeStores: MakeStores,
  retentionMs: number,
  options: { approvalCardTtlMs?: number } = {},
): StoreHarness {
  const harness = perTest(
    () => makeStores({ retentionMs, ...options }),
    (running) => running.cleanup(),
  );
  return {
    get stores() {
      return harness().stores;
    },
    cleanup: () => harness().cleanup(),
    elapse: (ms) => harness().elapse(ms),
    get keyPrefix() {
      return harness().keyPrefix;
    },
  };
}
