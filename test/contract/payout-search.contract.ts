/**
 * The history search's part of the store contract (see stores.contract.ts): the words of a
 * payout's name, note and alias find it as soon as it is written, accents and case folded,
 * each word by its start, in any order, within the period; and a payout is listed under its
 * status group from its creation on, moved there with each state change, for everyone and
 * for its initiator.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { type StatusGroup, wordsOf } from "../../src/model/search.js";
import type { StatusListOptions, Stores } from "../../src/store/types.js";
import { payoutIn, samplePayout } from "./payout-store.contract.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

const DAY = 86_400_000;
/** Older than a search of the last minute, well within the retention (10 minutes). */
const EARLIER = 120_000;

export function describePayoutSearchContract(makeStores: MakeStores): void {
  describe("payout search", () => {
    const harness = storesPerTest(makeStores, 600_000);
    let stores: Stores;
    let nowMs: number;

    beforeEach(() => {
      stores = harness.stores;
      nowMs = Date.now();
    });

    const find = async (text: string, period = { fromMs: nowMs - 60_000, toMs: nowMs + DAY }) => {
      const found = await stores.payouts.findByWords({
        words: wordsOf(text),
        ...period,
        limit: 50,
      });
      if (found.outcome !== "found") throw new Error(`${text}: ${found.outcome}`);
      return { ids: found.items.map((payout) => payout.id), complete: found.complete };
    };

    it("finds a payout by the words of its name, note and alias, accents and case folded", async () => {
      const aicha = samplePayout({ recipientName: "AÏCHA Ngono-Béti", note: "Loyer décembre" });
      const saved = samplePayout({ recipientName: "Paul Mbarga", recipientAlias: "Électricien" });
      const other = samplePayout({ recipientName: "Aimé Ngoa" });
      for (const payout of [aicha, saved, other]) await stores.payouts.create(payout);
      expect((await find("aïcha")).ids).toEqual([aicha.id]);
      expect((await find("NGONO")).ids).toEqual([aicha.id]);
      // Each word by its start, in any order; every word must hold.
      expect((await find("ngo ai")).ids.sort()).toEqual([aicha.id, other.id].sort());
      expect((await find("beti aich")).ids).toEqual([aicha.id]);
      expect((await find("loyer DECEMBRE")).ids).toEqual([aicha.id]);
      expect((await find("electricien")).ids).toEqual([saved.id]);
      expect((await find("ngono paul")).ids).toEqual([]);
      expect(await find("zzz")).toEqual({ ids: [], complete: true });
    });

    it("finds newest first, only within the period, and says when it read only the newest", async () => {
      const made: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const payout = samplePayout({
          recipientName: "Odile Fouda",
          createdAtMs: nowMs - i * 1000,
        });
        await stores.payouts.create(payout);
        made.push(payout.id);
      }
      const old = samplePayout({ recipientName: "Odile Fouda", createdAtMs: nowMs - EARLIER });
      await stores.payouts.create(old);
      expect(await find("odile")).toEqual({ ids: made, complete: true });
      expect((await find("odile", { fromMs: nowMs - 2 * EARLIER, toMs: nowMs })).ids).toEqual([
        ...made,
        old.id,
      ]);
      const two = await stores.payouts.findByWords({
        words: ["fouda"],
        fromMs: nowMs - 60_000,
        toMs: nowMs,
        limit: 2,
      });
      expect(two).toMatchObject({ outcome: "found", complete: false, exact: true, total: 5 });
      expect(two.outcome === "found" && two.items.map((payout) => payout.id)).toEqual(
        made.slice(0, 2),
      );
    });

    it("pages the matches from an offset", async () => {
      const made: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const payout = samplePayout({
          recipientName: "Jean Essomba",
          createdAtMs: nowMs - i * 1000,
        });
        await stores.payouts.create(payout);
        made.push(payout.id);
      }
      const period = { fromMs: nowMs - 60_000, toMs: nowMs };
      const page = await stores.payouts.findByWords({
        words: ["ess", "je"],
        ...period,
        offset: 2,
        limit: 2,
      });
      expect(page).toMatchObject({ outcome: "found", total: 5, exact: true, complete: false });
      expect(page.outcome === "found" && page.items.map((p) => p.id)).toEqual(made.slice(2, 4));
      const last = await stores.payouts.findByWords({
        words: ["essomba"],
        ...period,
        offset: 4,
        limit: 2,
      });
      expect(last).toMatchObject({ outcome: "found", complete: true });
      expect(last.outcome === "found" && last.items.map((p) => p.id)).toEqual(made.slice(4));
    });

    const listed = async (status: StatusGroup, userId?: number) => {
      const options: StatusListOptions = {
        status,
        fromMs: nowMs - DAY,
        toMs: nowMs + DAY,
        offset: 0,
        limit: 20,
        ...(userId === undefined ? {} : { userId }),
      };
      const list = await stores.payouts.listByStatus(options);
      return { ids: list.items.map((payout) => payout.id), total: list.total };
    };

    it("lists a payout under its status group, moved with its state, for everyone and its initiator", async () => {
      const payout = samplePayout({ initiatorId: 7 });
      await stores.payouts.create(payout);
      expect(await listed("other")).toEqual({ ids: [payout.id], total: 1 });
      expect(await listed("other", 7)).toEqual({ ids: [payout.id], total: 1 });
      await stores.payouts.transition(payout.id, "confirm");
      expect(await listed("other")).toEqual({ ids: [], total: 0 });
      expect(await listed("pending", 7)).toEqual({ ids: [payout.id], total: 1 });
      await stores.payouts.transition(payout.id, "accepted", { paymentId: `pay-${payout.id}` });
      expect(await listed("pending", 7)).toEqual({ ids: [payout.id], total: 1 });
      await stores.payouts.transition(payout.id, "settle_success");
      expect(await listed("pending")).toEqual({ ids: [], total: 0 });
      expect(await listed("paid")).toEqual({ ids: [payout.id], total: 1 });
      expect(await listed("paid", 7)).toEqual({ ids: [payout.id], total: 1 });
      expect(await listed("paid", 8)).toEqual({ ids: [], total: 0 });
      // A move refused moves nothing.
      expect((await stores.payouts.transition(payout.id, "confirm")).ok).toBe(false);
      expect(await listed("paid", 7)).toEqual({ ids: [payout.id], total: 1 });
    });

    it("pages a status group newest first and counts the period's", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const payout = await payoutIn(stores, "failed", { createdAtMs: nowMs - i * 1000 });
        ids.push(payout.id);
      }
      await payoutIn(stores, "failed", { createdAtMs: nowMs - EARLIER });
      const page = await stores.payouts.listByStatus({
        status: "failed",
        fromMs: nowMs - 60_000,
        toMs: nowMs,
        offset: 2,
        limit: 2,
      });
      expect(page.total).toBe(5);
      expect(page.items.map((payout) => payout.id)).toEqual(ids.slice(2, 4));
    });
  });
}
