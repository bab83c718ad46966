/**
 * What both recipient stores (the address book) must do: compare-and-set changes, the
 * count of aliases per number, last-paid times, and pending prompts taken once.
 */
import { describe, expect, it } from "vitest";
import type { Recipient } from "../../src/model/recipient.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

export function sampleRecipient(overrides: Partial<Recipient> = {}): Recipient {
  return {
    alias: "Jean",
    phone: "237670000001",
    operator: "mtn",
    registeredName: "Jean-Paul Mbarga",
    savedBy: 1002,
    savedAtMs: 1_764_000_000_000,
    rev: 1,
    ...overrides,
  };
}

export function describeRecipientStoreContract(makeStores: MakeStores): void {
  describe("recipients", () => {
    const harness = storesPerTest(makeStores, 600_000);

    it("saves a new alias once, and refuses a second save made on the same stale read", async () => {
      const { recipients } = harness.stores;
      expect(await recipients.put("jean", sampleRecipient(), 0)).toEqual({ outcome: "written" });
      expect(await recipients.get("jean")).toEqual(sampleRecipient());
      const other = sampleRecipient({ phone: "237690000001", operator: "orange" });
      expect(await recipients.put("jean", other, 0)).toEqual({
        outcome: "conflict",
        current: sampleRecipient(),
      });
      expect(await recipients.get("jean")).toEqual(sampleRecipient());
    });

    it("replaces an entry at the revision it was read at, and keeps numbers' counts in step", async () => {
      const { recipients } = harness.stores;
      await recipients.put("jean", sampleRecipient(), 0);
      await recipients.put("jp", sampleRecipient({ alias: "JP" }), 0);
      const moved = sampleRecipient({ phone: "237690000001", operator: "orange", rev: 2 });
      expect(await recipients.put("jean", moved, 1)).toEqual({ outcome: "written" });
      expect(await recipients.isSaved("237670000001")).toBe(true);
      expect(await recipients.isSaved("237690000001")).toBe(true);
      expect(await recipients.remove("jp", 1)).toEqual({ outcome: "written" });
      expect(await recipients.isSaved("237670000001")).toBe(false);
      expect(await recipients.remove("jean", 1)).toEqual({ outcome: "conflict", current: moved });
      expect(await recipients.remove("jean", 2)).toEqual({ outcome: "written" });
      expect(await recipients.get("jean")).toBeNull();
      expect(await recipients.isSaved("237690000001")).toBe(false);
      expect(await recipients.list()).toEqual([]);
    });

    it("lists every entry with when its number was last paid, only while it is saved", async () => {
      const { recipients } = harness.stores;
      await recipients.markPaid("237670000001", 1_764_000_100_000);
      await recipients.put("jean", sampleRecipient(), 0);
      await recipients.put(
        "aicha",
        sampleRecipient({ alias: "Aïcha", phone: "237690000001", operator: "orange" }),
        0,
      );
      await recipients.markPaid("237670000001", 1_764_000_200_000);
      const listed = await recipients.list();
      expect(listed.map((r) => [r.alias, r.lastPaidAtMs]).sort()).toEqual([
        ["Aïcha", undefined],
        ["Jean", 1_764_000_200_000],
      ]);
      await recipients.remove("jean", 1);
      await recipients.put("jean", sampleRecipient(), 0);
      expect((await recipients.list()).find((r) => r.alias === "Jean")?.lastPaidAtMs).toBe(
        undefined,
      );
    });

    it("keeps a pending prompt until its time passes, and hands it out once", async () => {
      const { stores, elapse } = harness;
      const ask = {
        kind: "ask",
        phone: "237670000001",
        initiatorId: 1002,
        chatId: 1002,
        expiresAtMs: 1_764_000_000_000,
      } as const;
      await stores.recipients.putPending("t1", ask, 60_000);
      await stores.recipients.putPending("t2", ask, 500);
      expect(await stores.recipients.getPending("t1")).toEqual(ask);
      const takes = await Promise.all([
        stores.recipients.takePending("t1"),
        stores.recipients.takePending("t1"),
      ]);
      expect(takes.filter((taken) => taken !== null)).toEqual([ask]);
      expect(await stores.recipients.getPending("t1")).toBeNull();
      await elapse(700);
      expect(await stores.recipients.getPending("t2")).toBeNull();
    });
  });
}
