/**
 * The batch store's contract (src/store/batch-store.ts), run on Redis and on memory through
 * stores.contract.ts: a move is a compare-and-set on the state and, when asked, on the
 * version (a step that read the batch before someone else moved it moves nothing).
 */
import { describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../src/model/audit.js";
import {
  type Batch,
  type BatchRow,
  type BatchTally,
  rowPayoutId,
  standingOfState,
} from "../../src/model/batch.js";
import type { PayoutState } from "../../src/model/lifecycle.js";
import type { Stores } from "../../src/store/types.js";
import { payoutIn } from "./payout-store.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

let counter = 0;

export function sampleBatch(overrides: Partial<Batch> = {}): Batch {
  counter += 1;
  return {
    id: `batch${String(counter).padStart(4, "0")}`,
    state: "ready",
    initiatorId: 1001,
    initiatorRole: "payer",
    chatId: 1001,
    locale: "en",
    fileName: "rows.csv",
    rowCount: 1,
    createdAtMs: 1_700_000_000_000,
    updatedAtMs: 1_700_000_000_000,
    checkedRows: 1,
    doneRows: 0,
    payableRows: 1,
    totalXaf: 5000,
    ...overrides,
  };
}

const ROW = { row: 2, phoneText: "237670000001", amountText: "5000" };

/** Where the rows stand, each row's payout read whole (what `tally` must equal). */
async function recount(stores: Stores, batchId: string): Promise<BatchTally> {
  const tally = { paid: 0, failed: 0, pending: 0, unknown: 0, skipped: 0, paidXaf: 0, feesXaf: 0 };
  for (const row of await stores.batches.rows(batchId, 0, 10_000)) {
    const payout =
      row.problem === undefined ? await stores.payouts.get(rowPayoutId(batchId, row.row)) : null;
    const standing = row.problem === undefined ? standingOfState(payout?.state) : "skipped";
    tally[standing] += 1;
    if (standing === "paid" && payout) {
      tally.paidXaf += payout.amount;
      tally.feesXaf += payout.fee ?? 0;
    }
  }
  return tally;
}

export function describeBatchStoreContract(makeStores: MakeStores): void {
  describe("batches", () => {
    const harness = storesPerTest(makeStores, 60_000);

    it("moves only from the states given, adding one to the version", async () => {
      const { batches } = harness.stores;
      const batch = sampleBatch();
      expect(await batches.create(batch, [ROW], SYSTEM_ACTOR)).toBe(true);
      const refused = await batches.move(batch.id, ["checking"], "running");
      expect(refused).toEqual({ ok: false, batch: expect.objectContaining({ state: "ready" }) });
      const moved = await batches.move(batch.id, ["ready"], "checking");
      expect(moved.ok && moved.batch.version).toBe(1);
      const updated = await batches.update(batch.id, { checkedRows: 0 });
      expect(updated?.version).toBe(1);
    });

    it("tallies every row from its payout as a recount does, past a page of rows", async () => {
      const { stores } = harness;
      const batch = sampleBatch({ state: "running", rowCount: 205, checkedRows: 205 });
      const rows: BatchRow[] = Array.from({ length: 205 }, (_, index) => ({
        ...ROW,
        row: index + 2,
        // A row with a problem is skipped, whatever became of a payout of its number.
        ...(index % 50 === 7 ? { problem: "no_account" as const } : {}),
      }));
      expect(await stores.batches.create(batch, rows, SYSTEM_ACTOR)).toBe(true);
      const states: PayoutState[] = [
        "success",
        "failed",
        "pending",
        "unknown",
        "canceled",
        "submitting",
        "awaiting_confirmation",
        "expired",
      ];
      for (const [index, row] of rows.entries()) {
        if (index % 9 === 8) continue; // its payout never made (the worker stopped first)
        const id = rowPayoutId(batch.id, row.row);
        const state = states[index % states.length] ?? "success";
        await payoutIn(stores, state, { id, batchId: batch.id, amount: 1000 + index, fee: 40 });
      }
      const counted = await recount(stores, batch.id);
      expect(Object.values(counted).every((figure) => figure > 0)).toBe(true);
      expect(await stores.batches.tally(batch.id)).toEqual(counted);
      expect(await stores.batches.tally("nobatch")).toEqual({
        paid: 0,
        failed: 0,
        pending: 0,
        unknown: 0,
        skipped: 0,
        paidXaf: 0,
        feesXaf: 0,
      });
    });

    it("refuses a move at a version the batch has moved past, and makes it at its own", async () => {
      const { batches } = harness.stores;
      const batch = sampleBatch();
      await batches.create(batch, [ROW], SYSTEM_ACTOR);
      const read = await batches.get(batch.id);
      const readVersion = read?.version ?? 0;
      // Someone else's steps in between: back to checking, and a new preview.
      await batches.move(batch.id, ["ready"], "checking");
      await batches.move(batch.id, ["checking"], "ready", { totalXaf: 9000 });

      const stale = await batches.move(
        batch.id,
        ["ready"],
        "running",
        {},
        {
          expectVersion: readVersion,
        },
      );
      expect(stale.ok).toBe(false);
      expect(stale.batch).toMatchObject({ state: "ready", totalXaf: 9000, version: 2 });

      const fresh = await batches.move(batch.id, ["ready"], "running", {}, { expectVersion: 2 });
      expect(fresh).toMatchObject({ ok: true, batch: { state: "running", version: 3 } });
    });

    it("refuses a move whose signers no longer all stand in the roles since the batch was made", async () => {
      const { batches, staff } = harness.stores;
      const batch = sampleBatch();
      await batches.create(batch, [ROW], SYSTEM_ACTOR);
      await staff.set(7001, "approver", undefined, batch.createdAtMs - 1);
      await staff.set(7002, "admin", undefined, batch.createdAtMs - 1);
      const askedAtMs = batch.createdAtMs;
      const signers = { userIds: [7001, 7002], roles: ["approver", "admin"] as const, askedAtMs };
      await staff.remove(7001);
      const gone = await batches.move(batch.id, ["ready"], "running", {}, { signers });
      expect(gone).toMatchObject({ ok: false, batch: { state: "ready" } });
      // Back, but with a role granted after the batch was made: still not counted.
      await staff.set(7001, "approver", undefined, batch.createdAtMs + 1);
      expect((await batches.move(batch.id, ["ready"], "running", {}, { signers })).ok).toBe(false);
      const adminsOnly = { ...signers, userIds: [7002], roles: ["admin"] as const };
      const made = await batches.move(batch.id, ["ready"], "running", {}, { signers: adminsOnly });
      expect(made).toMatchObject({ ok: true, batch: { state: "running" } });
    });
  });
}
