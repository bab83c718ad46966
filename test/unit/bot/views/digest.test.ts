import { describe, expect, it } from "vitest";
import { availabilityAlertView, digestView } from "../../../../src/bot/views/digest.js";
import { translator } from "../../../../src/i18n.js";
import type { DigestFacts } from "../../../../src/payouts/loops/digest.js";
import { acceptedPayout } from "../../../support/payouts.js";

const en = translator("en", "UTC");
const fr = translator("fr", "UTC");
const FROM = Date.UTC(2025, 0, 6);
const TO = FROM + 20 * 3_600_000;

function facts(overrides: Partial<DigestFacts> = {}): DigestFacts {
  return {
    day: "2025-01-06",
    fromMs: FROM,
    toMs: TO,
    totals: {
      disbursement: { states: [], fees: 0 },
      collection: { states: [], fees: 0 },
    },
    attention: [],
    attentionTotal: 0,
    batches: [],
    limits: [],
    staffChanges: [],
    staffChangesTotal: 0,
    ...overrides,
  };
}

describe("digestView", () => {
  it("says how many waiting payouts have some signatures and wait for more, in both languages", () => {
    const waiting = {
      state: "awaiting_approval",
      count: 3,
      amount: 900_000,
      partlySigned: 2,
    } as const;
    const day = facts({
      totals: {
        disbursement: { states: [waiting], fees: 0 },
        collection: { states: [], fees: 0 },
      },
    });
    expect(digestView(en, day).text).toContain(
      "  of which 2 have some signatures and wait for more",
    );
    expect(digestView(fr, day).text).toContain(
      "  dont 2 déjà signés en partie, qui attendent d’autres signatures",
    );
  });

  it("says a quiet day was quiet, and that nothing needs a person", () => {
    expect(digestView(en, facts()).text).toBe(
      [
        "📊 <b>Daily summary</b>: 06 Jan, 00:00 UTC to 06 Jan, 20:00 UTC",
        "",
        "No payouts or collections so far today.",
        "",
        "Nothing needs a person. 👍",
      ].join("\n"),
    );
  });

  it("lists ten payouts that need a person by reference, counts the rest, and escapes names", () => {
    const payouts = Array.from({ length: 10 }, (_, index) =>
      acceptedPayout(FROM, { state: "unknown", recipientName: index === 0 ? "<b>Eve</b>" : "Ali" }),
    );
    const text = digestView(en, facts({ attention: payouts, attentionTotal: 12 })).text;
    expect(text).toContain("⚠️ <b>Need a person</b> (12)");
    expect(text).toContain("&lt;b&gt;Eve&lt;/b&gt;");
    expect(text).toContain(`<code>${payouts[9]?.id}</code>`);
    expect(text).toContain("…and 2 more: see /unknown and /history.");
  });

  it("shows the batches run and the limits used when those features report them", () => {
    const text = digestView(
      fr,
      facts({
        batches: [{ batchId: "b-42", payouts: 1000, succeeded: 998, amount: 2_500_000 }],
        limits: [
          { usedXaf: 400_000, limitXaf: 1_000_000 },
          { userId: 1002, usedXaf: 50_000, limitXaf: 100_000 },
        ],
      }),
      new Map([[1002, "Paul"]]),
    ).text;
    expect(text).toContain(
      "<b>Lots traités</b>\n<code>b-42</code>\u202F: 1\u202F000 paiements, 998 effectués · 2\u202F500\u202F000\u00A0FCFA",
    );
    expect(text).toContain(
      "<b>Plafonds utilisés</b>\nToute l’équipe\u202F: 400\u202F000\u00A0FCFA sur 1\u202F000\u202F000\u00A0FCFA\nPaul\u202F: 50\u202F000\u00A0FCFA sur 100\u202F000\u00A0FCFA",
    );
  });
});

describe("availabilityAlertView", () => {
  it("lists the day's staff changes in both languages, counting those not shown", () => {
    const names = new Map([
      [1001, "Awa"],
      [1002, "<Paul>"],
    ]);
    const shown = facts({
      staffChanges: [
        { atMs: FROM, userId: 1002, before: "payer", after: "viewer", byUserId: 1001 },
        { atMs: FROM, userId: 2002, before: null, after: "approver", byUserId: 0 },
        { atMs: FROM, userId: 2003, before: undefined, after: null, byUserId: 1001 },
      ],
      staffChangesTotal: 4,
    });
    expect(digestView(en, shown, names).text).toContain(
      [
        "👥 <b>Staff changes</b> (4)",
        "&lt;Paul&gt;: payer → viewer, by Awa",
        "user 2002: not staff → approver, by the STAFF setting",
        "user 2003: now not staff, by Awa",
        "…and 1 more: see /audit.",
      ].join("\n"),
    );
    expect(digestView(fr, shown, names).text).toContain(
      "&lt;Paul&gt;\u202F: payeur → lecteur, par Awa",
    );
    expect(digestView(en, facts()).text).not.toContain("Staff changes");
  });

  it("tells a collection coming back, with its pending count, and no advice", () => {
    const alert = {
      kind: "availability",
      operator: "orange",
      operation: "collection",
      status: "OPERATIONAL",
      sinceMs: TO,
    } as const;
    expect(availabilityAlertView(en, alert, true, 2).text).toBe(
      "✅ <b>Orange Money collections work again</b> since 06 Jan, 20:00 UTC.\nCollections pending with Orange Money right now: 2.",
    );
    expect(availabilityAlertView(fr, { ...alert, status: "SUSPENDED" }, false, 0).text).toBe(
      [
        "⛔ <b>Encaissements Orange Money indisponibles</b> (Suspendu) depuis le 6 janv. à 20:00 UTC.",
        "Encaissements Orange Money en cours chez l’opérateur\u202F: 0.",
        "Les nouvelles demandes sont refusées jusqu’au rétablissement\u202F; le bot vous préviendra.",
      ].join("\n"),
    );
  });
});
