import { describe, expect, it } from "vitest";
import { AUDIT_CALLBACK_PATTERN, auditLine, auditView } from "../../../../src/bot/views/audit.js";
import { translator } from "../../../../src/i18n.js";
import type { AuditEntry } from "../../../../src/model/audit.js";

const en = translator("en", "UTC");
const AT = Date.UTC(2025, 0, 6, 9, 30);

function entry(index: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: `${AT + index}-0`,
    atMs: AT + index,
    actorId: 1002,
    actorRole: "payer",
    action: "confirm",
    payoutId: `payout-${index}`,
    from: "awaiting_confirmation",
    to: "submitting",
    amount: 5000,
    phone: "23767••••001",
    ...overrides,
  };
}

describe("auditLine", () => {
  it("says when, what, who, and what to, with the states before and after", () => {
    expect(auditLine(en, entry(0), new Map([[1002, "Paul"]]))).toBe(
      "06 Jan, 09:30 UTC · <b>Confirmed</b> · by Paul (payer)\n   payout <code>payout-0</code> · 5,000 FCFA · 23767••••001 · ❔ Waiting for confirmation → ⏳ Sending…",
    );
  });

  it("writes every fact in words in French: no field names, no raw codes", () => {
    const fr = translator("fr");
    const cancel = auditLine(
      fr,
      entry(0, {
        action: "cancel",
        to: "cancelled",
        details: { command: "cancel", duplicateOf: "Zx9_Kq" },
      }),
      new Map([[1002, "Aïcha"]]),
    );
    expect(cancel).toContain("avec /cancel · répète le paiement <code>Zx9_Kq</code>");
    expect(cancel).not.toMatch(/command|duplicateOf/);
    const refused = auditLine(
      fr,
      entry(1, {
        action: "limit_refused",
        details: {
          kind: "disbursement",
          step: "confirm",
          limit: "merchant",
          capXaf: 100_000,
          usedXaf: 95_000,
          day: "2025-01-06",
        },
      }),
      new Map(),
    );
    expect(refused).toContain(
      "paiement · à la confirmation · plafond journalier de l’équipe · plafond 100\u202F000\u00A0FCFA · déjà engagé 95\u202F000\u00A0FCFA · journée du 2025-01-06",
    );
    expect(refused).not.toMatch(/capXaf|usedXaf|merchant|disbursement/);
  });

  it("shows an action this version does not know as written, and escapes every fact", () => {
    const line = auditLine(
      en,
      {
        id: "1-0",
        atMs: AT,
        actorId: 0,
        actorRole: "system",
        action: "limit_<refused>",
        details: { reason: "<i>over</i>", userId: 7 },
      },
      new Map(),
    );
    expect(line).toBe(
      "06 Jan, 09:30 UTC · <b>Other action: limit_&lt;refused&gt;</b> · by the bot\n   reason: “&lt;i&gt;over&lt;/i&gt;” · user 7",
    );
  });
});

describe("auditView", () => {
  it("shows fewer entries than asked when they would not fit one message, and pages on from the last shown", () => {
    const long = "x".repeat(80);
    const entries = Array.from({ length: 20 }, (_, index) =>
      entry(20 - index, { details: { a: long, b: long, c: long } }),
    );
    const view = auditView(en, { entries, size: 20, hasOlder: false, hasNewer: false }, new Map());
    expect(view.text.length).toBeLessThanOrEqual(3800);
    const shown = (view.text.match(/Confirmed/g) ?? []).length;
    expect(shown).toBeLessThan(20);
    const older = view.keyboard?.inline_keyboard.flat().at(-1);
    const data = older && "callback_data" in older ? older.callback_data : "";
    expect(AUDIT_CALLBACK_PATTERN.exec(data)?.slice(1)).toEqual([
      "o",
      "20",
      entries[shown - 1]?.id,
    ]);
  });

  it("says when the trail is empty", () => {
    expect(
      auditView(en, { entries: [], size: 10, hasOlder: false, hasNewer: false }, new Map()).text,
    ).toBe("The audit trail is empty.");
  });
});
