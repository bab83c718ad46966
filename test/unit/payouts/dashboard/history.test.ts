/**
 * History's search: each kind of query finds what it should through its index, the filters
 * apply, and a payer never finds someone else's payout, whatever they type.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Payout } from "../../../../src/model/payout.js";
import {
  type HistoryQuery,
  historyPage,
  searchHistory,
} from "../../../../src/payouts/dashboard/history.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import type { Stores } from "../../../../src/store/types.js";
import { acceptedPayout } from "../../../support/payouts.js";

const NOW = Date.UTC(2026, 10, 25, 12);
const DAY = 86_400_000;
const ADMIN = { userId: 1, role: "admin" as const };
const PAYER = { userId: 2, role: "payer" as const };
const OTHER = 3;

let stores: Stores;
const deps = () => ({ stores, timeZone: "Africa/Douala", now: () => NOW });
const query = (fields: Partial<HistoryQuery>): HistoryQuery => ({ page: 0, ...fields });

async function add(overrides: Partial<Payout>): Promise<Payout> {
  const payout = acceptedPayout(overrides.createdAtMs ?? NOW, overrides);
  await stores.payouts.create(payout);
  return payout;
}

beforeEach(async () => {
  stores = createMemoryStores({ retentionMs: 90 * DAY, now: () => NOW });
  await stores.staff.set(1, "admin");
  await stores.staff.set(2, "payer");
  await stores.staff.set(OTHER, "payer");
  await stores.profiles.set(OTHER, { firstName: "Odile" });
});

describe("History search", () => {
  it("finds by number however it is written, by payment id and by payout id", async () => {
    const mine = await add({
      phone: "237690000022",
      initiatorId: 2,
      paymentId: "pay-x1",
      createdAtMs: NOW - DAY,
    });
    await add({ phone: "237670000001", initiatorId: 2 });
    for (const q of ["690000022", "+237 690 00 00 22", "237690000022"]) {
      const found = await searchHistory(deps(), ADMIN, query({ q }));
      expect(found.via).toBe("number");
      expect(found.items.map((p) => p.id)).toEqual([mine.id]);
    }
    expect(
      (await searchHistory(deps(), ADMIN, query({ q: "pay-x1" }))).items.map((p) => p.id),
    ).toEqual([mine.id]);
    expect(
      (await searchHistory(deps(), ADMIN, query({ q: mine.id }))).items.map((p) => p.id),
    ).toEqual([mine.id]);
  });

  it("finds a staff member's payouts by id or first name, and a recipient by name", async () => {
    const odile = await add({ initiatorId: OTHER, recipientName: "Aïcha Bello" });
    await add({ initiatorId: 2, recipientName: "Marie Ngo" });
    const byId = await historyPage(deps(), ADMIN, query({ q: String(OTHER) }));
    expect(byId.items.map((p) => p.id)).toEqual([odile.id]);
    const byName = await searchHistory(deps(), ADMIN, query({ q: "odile" }));
    expect(byName).toMatchObject({ via: "staff" });
    expect(byName.items.map((p) => p.id)).toEqual([odile.id]);
    const byRecipient = await searchHistory(deps(), ADMIN, query({ q: "bello" }));
    expect(byRecipient).toMatchObject({ via: "words", partial: false });
    expect(byRecipient.items.map((p) => p.id)).toEqual([odile.id]);
  });

  it("takes one word for a staff member's first name and a recipient's name both", async () => {
    const byOdile = await add({
      initiatorId: OTHER,
      recipientName: "Marie Ngo",
      createdAtMs: NOW - DAY,
    });
    const toOdile = await add({ initiatorId: 2, recipientName: "Odile Mbarga" });
    await add({ initiatorId: 2, recipientName: "Samuel Eto" });
    const found = await searchHistory(deps(), ADMIN, query({ q: "Odile" }));
    expect(found.items.map((p) => p.id)).toEqual([toOdile.id, byOdile.id]);
    const page = await historyPage(deps(), ADMIN, query({ q: "odile" }));
    expect(page.total).toBe(2);
    // A payer sees only their own, whichever way the word matched.
    const mine = await searchHistory(deps(), PAYER, query({ q: "Odile" }));
    expect(mine.items.map((p) => p.id)).toEqual([toOdile.id]);
  });

  it("finds a recipient by words of the name, note or alias, accents and case aside", async () => {
    const aicha = await add({ recipientName: "Aïcha Bello", note: "Loyer décembre" });
    const saved = await add({ recipientName: "Paul Mbarga", recipientAlias: "électricien" });
    await add({ recipientName: "Marie Ngo" });
    for (const q of ["AICHA", "bel aï", "Décembre", "loyer bello"]) {
      const page = await historyPage(deps(), ADMIN, query({ q }));
      expect(page, q).toMatchObject({ via: "words", total: 1 });
      expect(page.items.map((p) => p.id)).toEqual([aicha.id]);
    }
    expect((await historyPage(deps(), ADMIN, query({ q: "Electricien" }))).items).toEqual([
      expect.objectContaining({ id: saved.id }),
    ]);
    expect((await historyPage(deps(), ADMIN, query({ q: "aicha paul" }))).total).toBe(0);
  });

  it("pages a status from its index, everyone's or a staff member's, within the dates", async () => {
    const theirs = await add({ state: "failed", initiatorId: OTHER, createdAtMs: NOW - DAY });
    const own = await add({ state: "canceled", initiatorId: 2, createdAtMs: NOW - 2 * DAY });
    await add({ state: "success", initiatorId: OTHER, createdAtMs: NOW - DAY });
    await add({ state: "failed", initiatorId: OTHER, createdAtMs: NOW - 30 * DAY });
    const failed = await historyPage(
      deps(),
      ADMIN,
      query({ status: "failed", from: "2026-11-20" }),
    );
    expect(failed).toMatchObject({ via: "status", total: 2 });
    expect(failed.items.map((p) => p.id)).toEqual([theirs.id, own.id]);
    const byStaff = await historyPage(
      deps(),
      ADMIN,
      query({ q: String(OTHER), status: "failed", from: "2026-11-20" }),
    );
    expect(byStaff).toMatchObject({ via: "staff", total: 1 });
    expect(byStaff.items.map((p) => p.id)).toEqual([theirs.id]);
    // A payer's status filter reads their own index only.
    const payers = await historyPage(deps(), PAYER, query({ status: "failed" }));
    expect(payers.items.map((p) => p.id)).toEqual([own.id]);
  });

  it("applies status, kind and dates", async () => {
    const paid = await add({ state: "success", createdAtMs: NOW - 2 * DAY });
    await add({ state: "failed", createdAtMs: NOW - 2 * DAY });
    await add({ state: "success", kind: "collection", createdAtMs: NOW - 2 * DAY });
    await add({ state: "success", createdAtMs: NOW - 20 * DAY });
    const page = await historyPage(
      deps(),
      ADMIN,
      query({ status: "paid", kind: "disbursement", from: "2026-11-20", to: "2026-11-25" }),
    );
    expect(page.items.map((p) => p.id)).toEqual([paid.id]);
    expect(page.total).toBe(1);
  });

  it("applies the operator and the amount, alone (no index of their own) or with others", async () => {
    const orange = await add({ operator: "orange", phone: "237690000001", amount: 5000 });
    const mtn = await add({ state: "success", amount: 5000, createdAtMs: NOW - DAY });
    await add({ state: "success", amount: 7000, recipientName: "Odette Kamga" });
    const ids = async (fields: Partial<HistoryQuery>) =>
      (await historyPage(deps(), ADMIN, query(fields))).items.map((p) => p.id);
    expect(await ids({ operator: "orange" })).toEqual([orange.id]);
    expect(await ids({ amount: 5000 })).toEqual([orange.id, mtn.id]);
    expect(await ids({ amount: 5000, operator: "mtn" })).toEqual([mtn.id]);
    expect(await ids({ amount: 5000, status: "paid" })).toEqual([mtn.id]);
    expect(await ids({ amount: 7000, q: "kamga" })).toHaveLength(1);
    expect(await ids({ amount: 5000, q: "kamga" })).toEqual([]);
    // A payer's own only, as everywhere.
    expect(
      (await historyPage(deps(), PAYER, query({ amount: 5000 }))).items.every(
        (p) => p.initiatorId === PAYER.userId,
      ),
    ).toBe(true);
  });

  it("never shows a payer someone else's payout, whatever they search", async () => {
    const theirs = await add({ initiatorId: OTHER, phone: "237690000077", paymentId: "pay-other" });
    const own = await add({ initiatorId: 2, phone: "237690000077" });
    for (const q of ["690000077", "pay-other", theirs.id, String(OTHER), "Odile", ""]) {
      const page = await historyPage(deps(), PAYER, query({ q }));
      expect(page.items.map((p) => p.id)).not.toContain(theirs.id);
    }
    expect(
      (await historyPage(deps(), PAYER, query({ q: "690000077" }))).items.map((p) => p.id),
    ).toEqual([own.id]);
  });

  it("pages a name search twenty at a time, counting every match", async () => {
    for (let i = 0; i < 45; i += 1) {
      await add({ recipientName: `Jean Essomba ${i}`, createdAtMs: NOW - i * 1000 });
    }
    await add({ recipientName: "Jeanne Atangana" });
    const pages = await Promise.all(
      [0, 1, 2].map((page) => historyPage(deps(), ADMIN, query({ q: "essomba jean", page }))),
    );
    expect(pages.map((p) => p.items.length)).toEqual([20, 20, 5]);
    expect(pages.map((p) => [p.total, p.via, p.partial])).toEqual(
      [0, 1, 2].map(() => [45, "words", false]),
    );
    expect(new Set(pages.flatMap((p) => p.items.map((item) => item.id))).size).toBe(45);
  });

  it("pages a long list, twenty at a time", async () => {
    for (let i = 0; i < 45; i += 1) await add({ initiatorId: OTHER, createdAtMs: NOW - i * 1000 });
    const pages = await Promise.all(
      [0, 1, 2].map((page) => historyPage(deps(), ADMIN, query({ q: String(OTHER), page }))),
    );
    expect(pages.map((p) => p.items.length)).toEqual([20, 20, 5]);
    expect(pages[0]?.total).toBe(45);
    const ids = new Set(pages.flatMap((p) => p.items.map((item) => item.id)));
    expect(ids.size).toBe(45);
  });
});
