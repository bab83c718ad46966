/**
 * A batch's Confirm moves the batch it read: when an Include (back to checking) and the
 * worker's new preview (ready again, a new total) land between its read and its move, that
 * Confirm moves nothing and says the preview changed; the new preview's Confirm runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../../../src/model/audit.js";
import { PaymentClient } from "../../../../src/payments/client.js";
import { createPayouts } from "../../../../src/payouts/payouts.js";
import { type SandboxHandle, startSandbox } from "../../../../src/sandbox/index.js";
import type { BatchStore } from "../../../../src/store/batch-store.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import { sampleBatch } from "../../../contract/batch-store.contract.js";
import { capturedLogger } from "../../../support/logs.js";

let sandbox: SandboxHandle;
let client: PaymentClient;

beforeAll(async () => {
  sandbox = await startSandbox({ settleDelayMs: 600_000, rateLimitPerMinute: 0 });
  client = new PaymentClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

/** Batches whose next read is followed, before it is answered, by `between`. */
function interleaved(real: BatchStore, between: () => Promise<void>): BatchStore {
  let pending: (() => Promise<void>) | null = between;
  return {
    create: (batch, rows, actor) => real.create(batch, rows, actor),
    get: async (id) => {
      const read = await real.get(id);
      const step = pending;
      pending = null;
      if (step) await step();
      return read;
    },
    rows: (id, from, count) => real.rows(id, from, count),
    tally: (id) => real.tally(id),
    setRows: (id, rows) => real.setRows(id, rows),
    move: (id, from, to, patch, options) => real.move(id, from, to, patch, options),
    update: (id, patch, notices) => real.update(id, patch, notices),
    active: () => real.active(),
    list: (options) => real.list(options),
  };
}

describe("a batch Confirm racing an Include", () => {
  it("moves nothing when the preview changed after its read, and the new one confirms", async () => {
    const stores = createMemoryStores({ retentionMs: 86_400_000 });
    const batch = sampleBatch({
      initiatorId: 1,
      chatId: 1,
      totalXaf: 5000,
      expiresAtMs: Date.now() + 60_000,
    });
    await stores.batches.create(batch, [], SYSTEM_ACTOR);
    const real = stores.batches;
    // The payer's Include, then the worker's new preview with the included rows' total.
    const racing = interleaved(real, async () => {
      await real.move(batch.id, ["ready"], "checking", { includedRepeats: 2 });
      await real.move(batch.id, ["checking"], "ready", { totalXaf: 9000 });
    });
    const payouts = createPayouts({
      gateway: client,
      stores: { ...stores, batches: racing },
      logger: capturedLogger("warn").logger,
      confirmationTtlSeconds: 300,
      statusPollIntervalMs: 5000,
    });
    const payer = { userId: 1, role: "payer" } as const;

    const stale = await payouts.batches.confirm(batch.id, payer);
    expect(stale).toMatchObject({ outcome: "changed", batch: { state: "ready", totalXaf: 9000 } });
    expect((await real.get(batch.id))?.state).toBe("ready");
    const audited = await stores.audit.recent(10);
    expect(audited.filter((entry) => entry.action === "batch_confirm")).toHaveLength(0);

    const fresh = await payouts.batches.confirm(batch.id, payer);
    expect(fresh).toMatchObject({ outcome: "done", batch: { state: "running", totalXaf: 9000 } });
  });
});
