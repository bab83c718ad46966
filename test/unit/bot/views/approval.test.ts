import { describe, expect, it } from "vitest";
import {
  approvalCard,
  decidedPromptView,
  payerDecisionNotice,
  rejectedCard,
  rejectionReasonNotice,
  waitingView,
} from "../../../../src/bot/views/approval.js";
import { CALLBACK_PATTERN, type View } from "../../../../src/bot/views/common.js";
import { limitsView } from "../../../../src/bot/views/limits.js";
import {
  confirmationPrompt,
  duplicateWarning,
  promptExtras,
} from "../../../../src/bot/views/pay.js";
import { parseTelegramHtml } from "../../../../src/dev/telegram-emulator/html.js";
import { translator } from "../../../../src/i18n.js";
import { type Payout, PayoutSchema } from "../../../../src/model/payout.js";

const en = translator("en");
const fr = translator("fr");
const NOW = Date.UTC(2024, 10, 23, 11, 0);
const HOSTILE = '<b>Eve</b> & "Co" <script>';
const NAMES = new Map([
  [1002, "Paul"],
  [1004, HOSTILE],
]);

function payout(overrides: Partial<Payout> = {}): Payout {
  return PayoutSchema.parse({
    id: "Zx9_Kq-3LmNpQr8s",
    kind: "disbursement",
    state: "awaiting_approval",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount: 250_000,
    note: "rent",
    initiatorId: 1002,
    chatId: 1002,
    locale: "en",
    createdAtMs: NOW,
    updatedAtMs: NOW,
    expiresAtMs: NOW + 300_000,
    approvalExpiresAtMs: NOW + 86_400_000,
    ...overrides,
  });
}

/** What the user reads; throws like Telegram on HTML it would refuse. */
function read(view: View | string): string {
  return parseTelegramHtml(typeof view === "string" ? view : view.text).text;
}

describe("approvalCard", () => {
  it("shows what, to whom, who asked and when, with Approve and Reject by opaque id", () => {
    const view = approvalCard(en, payout(), NAMES);
    expect(read(view)).toBe(
      [
        "🖊 Approval needed: a payout",
        "",
        "To: Jean-Paul Mbarga",
        "Number: +237 670 00 00 01 (MTN MoMo)",
        "Amount: 250,000 FCFA",
        "Note: rent",
        "",
        "Asked by Paul on 23 Nov, 12:00 UTC+1.",
        "If nobody decides, it expires on 24 Nov, 12:00 UTC+1. Nothing is paid until someone approves it.",
      ].join("\n"),
    );
    const [approve, reject] = view.keyboard?.inline_keyboard.flat() ?? [];
    const data = (button: typeof approve) =>
      button && "callback_data" in button ? button.callback_data : "";
    expect(CALLBACK_PATTERN.approve.exec(data(approve))?.[1]).toBe("Zx9_Kq-3LmNpQr8s");
    expect(CALLBACK_PATTERN.reject.exec(data(reject))?.[1]).toBe("Zx9_Kq-3LmNpQr8s");
    expect(data(approve)).not.toContain("250");
  });

  it("opens a decided card with the decision, escapes every name and reason, and drops the buttons", () => {
    const rejected = payout({
      state: "rejected",
      rejectedBy: 1004,
      decidedAtMs: NOW + 60_000,
      rejectionReason: HOSTILE,
      recipientName: HOSTILE,
    });
    const view = approvalCard(en, rejected, NAMES);
    expect(view.keyboard).toBeUndefined();
    expect(read(view)).toMatch(
      /^🚫 Rejected by <b>Eve<\/b> & "Co" <script> on 23 Nov, 12:01 UTC\+1\.\nReason: <b>Eve<\/b>/,
    );
    expect(read(rejectedCard(en, rejected, NAMES))).toContain(
      "💬 To tell Paul why, reply to this message with the reason.",
    );
    const approved = payout({ state: "pending", approvedBy: 1004, decidedAtMs: NOW });
    expect(read(approvalCard(fr, approved, new Map(), { status: true }))).toMatch(
      /^✅ Approuvé par utilisateur 1004 le 23 nov\. à 12:00\.\nÉtat actuel\u202F: ⏳ En cours chez l’opérateur/,
    );
    expect(read(approvalCard(en, payout({ state: "expired" }), NAMES))).toMatch(
      /^⌛ Expired: nobody decided by 24 Nov, 12:00 UTC\+1\. Nothing was paid\./,
    );
  });
});

describe("the payer's views of an approval", () => {
  it("says who may approve and until when, or that nobody can yet", () => {
    expect(read(waitingView(en, payout(), ["Ama", "Awa"]))).toMatch(
      /Waiting for Ama, Awa to approve it\. If nobody decides, it expires on 24 Nov, 12:00 UTC\+1\./,
    );
    expect(read(waitingView(fr, payout(), []))).toContain(
      "Personne d’autre ne peut encore l’approuver",
    );
  });

  it("tells a rejection with its reason, an expiry, and an approval with where it stands", () => {
    const rejected = payout({ state: "rejected", rejectedBy: 1004, rejectionReason: "too much" });
    expect(read(payerDecisionNotice(en, rejected, new Map([[1004, "Ama"]])))).toBe(
      "🚫 Rejected by Ama: 250,000 FCFA for Jean-Paul Mbarga. Nothing was paid.\nReason: too much",
    );
    expect(read(rejectionReasonNotice(fr, rejected, new Map([[1004, "Ama"]])))).toBe(
      "💬 Motif du refus donné par Ama pour 250\u202F000\u00A0FCFA, Jean-Paul Mbarga\u202F: «\u202Ftoo much\u202F»",
    );
    expect(read(payerDecisionNotice(en, payout({ state: "expired" }), NAMES))).toBe(
      "⌛ Expired: nobody approved 250,000 FCFA for Jean-Paul Mbarga in time. Nothing was paid.",
    );
    const approved = payout({ state: "rejected_by_api", approvedBy: 1004, errorStatusCode: 403 });
    expect(read(payerDecisionNotice(en, approved, new Map([[1004, "Ama"]])))).toMatch(
      /^✅ Approved by Ama: 250,000 FCFA for Jean-Paul Mbarga\.\n\n🚫 Not accepted/,
    );
    expect(read(decidedPromptView(en, rejected, new Map([[1004, "Ama"]])))).toMatch(
      /^🚫 Rejected by an approver[\s\S]*Nothing was paid\.\n\n🚫 Rejected by Ama on .*\nReason: too much$/,
    );
  });
});

describe("the rules in a prompt", () => {
  it("puts the duplicate warning first, escaped, and makes Confirm read Pay again", () => {
    const earlier = payout({ state: "success", initiatorId: 1004, createdAtMs: NOW - 3_600_000 });
    const warning = duplicateWarning(en, earlier, NAMES);
    const view = confirmationPrompt(en, payout({ state: "awaiting_confirmation" }), NOW, {
      duplicateWarning: warning,
    });
    expect(read(view)).toMatch(
      /^⚠️⚠️ PAID ALREADY\? The same amount went to this number on 23 Nov, 11:00 UTC\+1, by <b>Eve<\/b> & "Co" <script> \(✅ Completed\)\./,
    );
    expect(view.keyboard?.inline_keyboard.flat().map((button) => button.text)).toEqual([
      "⚠️ Pay again",
      "✖️ Cancel",
    ]);
    const collect = payout({ kind: "collection", state: "awaiting_confirmation" });
    const french = confirmationPrompt(fr, collect, NOW, {
      duplicateWarning: duplicateWarning(fr, { ...earlier, kind: "collection" }, NAMES),
    });
    expect(read(french)).toMatch(
      /^⚠️⚠️ DOUBLON\u202F\? Une demande du même montant à ce numéro a déjà été créée/,
    );
    expect(french.keyboard?.inline_keyboard.flat()[0]?.text).toBe("⚠️ Redemander");
  });

  it("notes that a second person will approve only at or over the threshold", () => {
    const at = promptExtras(en, payout({ amount: 100_000 }), { names: null, threshold: 100_000 });
    expect(at.notes?.map(read)).toEqual([
      "🖊 From 100,000 FCFA, a second person approves: once you confirm, it waits for an approver.",
    ]);
    expect(
      promptExtras(en, payout({ amount: 99_999 }), { names: null, threshold: 100_000 }),
    ).toEqual({});
    expect(promptExtras(en, payout(), { names: null, threshold: undefined })).toEqual({});
  });
});

describe("an approval card of a rule of two signatures", () => {
  const ruled: Partial<Payout> = {
    approvalRule: { signatures: 2, roles: ["admin", "approver"] },
  };

  it("says none was given yet", () => {
    const text = read(approvalCard(en, payout(ruled), NAMES));
    expect(text).toContain("2 signatures: none given yet.");
  });

  it("names who signed and when, escaped, in both languages", () => {
    const signed = payout({ ...ruled, signatures: [{ userId: 1004, atMs: NOW }] });
    expect(read(approvalCard(en, signed, NAMES))).toContain(
      `2 signatures: 1 given, by ${HOSTILE} on ${en.time(NOW)}.`,
    );
    expect(read(approvalCard(fr, signed, NAMES))).toContain(
      `2 signatures\u202F: 1 donnée, par ${HOSTILE} le ${fr.time(NOW)}.`,
    );
  });

  it("says nothing of signatures for a rule of one", () => {
    expect(read(approvalCard(en, payout(), NAMES))).not.toContain("signature");
  });
});

describe("limitsView", () => {
  const report = {
    day: "2024-11-23",
    payerCapXaf: 100_000,
    merchantCapXaf: 150_000,
    merchantUsedXaf: 120_000,
    byUser: new Map([
      [1002, 40_000],
      [1004, 80_000],
    ]),
    approvalBands: [],
  };

  it("says the approval rules in words, in both languages", () => {
    const bands = [
      { fromXaf: 100_000, signatures: 1, roles: ["admin", "approver"] },
      { fromXaf: 1_000_000, signatures: 2, roles: ["admin"] },
    ] as const;
    const ruled = { ...report, approvalBands: bands };
    const reader = { userId: 1002, pays: true, everyone: false };
    expect(read(limitsView(en, ruled, reader, NAMES))).toContain(
      "Approvals\nUnder 100,000 FCFA: no approval.\n" +
        "From 100,000 FCFA: 1 signature, approvers or admins; never the person who asked.\n" +
        "From 1,000,000 FCFA: 2 different people sign, admins only; never the person who asked.",
    );
    const french = read(limitsView(fr, ruled, reader, NAMES));
    expect(french).toContain(
      "À partir de 1\u202F000\u202F000\u00A0FCFA\u202F: 2 personnes différentes signent, admins seulement",
    );
    expect(read(limitsView(en, report, reader, NAMES))).toContain(
      "No approval is needed, whatever the amount.",
    );
  });

  it("gives a payer their use and what is left under every cap, not everyone's by payer", () => {
    const text = read(limitsView(en, report, { userId: 1002, pays: true, everyone: false }, NAMES));
    // 60,000 left under their own cap, but only 30,000 for everyone together.
    expect(text).toContain("You today: 40,000 FCFA used, 30,000 FCFA left");
    expect(text).toContain("Everyone today: 120,000 FCFA used, 30,000 FCFA left");
    expect(text).not.toContain("By payer");
  });

  it("lists each payer for those who see everyone's, most first, names escaped", () => {
    const view = limitsView(en, report, { userId: 1001, pays: true, everyone: true }, NAMES);
    expect(read(view)).toContain(`By payer today\n${HOSTILE}: 80,000 FCFA\nPaul: 40,000 FCFA`);
  });

  it("says when there is no cap", () => {
    const open = { ...report, payerCapXaf: undefined, merchantCapXaf: undefined };
    const text = read(limitsView(fr, open, { userId: 1002, pays: true, everyone: false }, NAMES));
    expect(text).toContain("Chaque payeur\u202F: pas de plafond");
    expect(text).toContain("Vous, aujourd’hui\u202F: engagé 40\u202F000\u00A0FCFA");
    expect(text).not.toContain("disponible");
  });
});
