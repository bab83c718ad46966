import { describe, expect, it } from "vitest";
import {
  CALLBACK,
  CALLBACK_PATTERN,
  payoutStateView,
  refusalReason,
  type View,
} from "../../../../src/bot/views/common.js";
import { settlementNotice, stuckNotice } from "../../../../src/bot/views/notices.js";
import {
  amountProblemText,
  cannotPayText,
  confirmationPrompt,
  phoneProblemText,
  prepareFailureText,
} from "../../../../src/bot/views/pay.js";
import {
  availabilityView,
  historyView,
  paymentView,
  payoutLine,
} from "../../../../src/bot/views/reports.js";
import { parseTelegramHtml } from "../../../../src/dev/telegram-emulator/html.js";
import { translator } from "../../../../src/i18n.js";
import { PAYOUT_STATES } from "../../../../src/model/lifecycle.js";
import { LOCALES } from "../../../../src/model/locale.js";
import { AMOUNT_PROBLEMS, MAX_AMOUNT_XAF } from "../../../../src/model/money.js";
import { type Payout, PayoutSchema } from "../../../../src/model/payout.js";
import type { PhoneProblem } from "../../../../src/model/phone.js";
import type { AvailabilityEntry } from "../../../../src/payments/schemas.js";

const en = translator("en");
const fr = translator("fr");
const NOW = Date.UTC(2024, 0, 15, 11, 0);
const HOSTILE = '<b>Eve</b> & "Co" <script>';

function payout(overrides: Partial<Payout> = {}): Payout {
  return PayoutSchema.parse({
    id: "Zx9_Kq-3LmNpQr8sTuVw",
    kind: "disbursement",
    state: "awaiting_confirmation",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount: 1_234_500,
    initiatorId: 1002,
    chatId: 1002,
    locale: "en",
    createdAtMs: NOW,
    updatedAtMs: NOW,
    expiresAtMs: NOW + 300_000,
    ...overrides,
  });
}

/** What the user reads; throws like Telegram on HTML it would refuse. */
function read(view: View | string): string {
  return parseTelegramHtml(typeof view === "string" ? view : view.text).text;
}

describe("confirmationPrompt", () => {
  it("shows name, full number, operator, amount, note and expiry in English", () => {
    const view = confirmationPrompt(en, payout({ note: "delivery" }), NOW);

    expect(read(view)).toBe(
      [
        "💸 Confirm this payout",
        "",
        "To: Jean-Paul Mbarga",
        "Number: +237 670 00 00 01 (MTN MoMo)",
        "Amount: 1,234,500 FCFA",
        "Note: delivery",
        "",
        "Check the name. This confirmation expires in 5 min (15 Jan, 12:05 UTC+1).",
      ].join("\n"),
    );
  });

  it("writes French with French amounts (narrow no-break spaces) and French buttons", () => {
    const view = confirmationPrompt(
      fr,
      payout({ locale: "fr", operator: "orange", phone: "237690000001" }),
      NOW,
    );

    const text = read(view);
    expect(text).toContain("Confirmez ce paiement");
    expect(text).toContain("Numéro\u202F: +237 690 00 00 01 (Orange Money)");
    expect(text).toContain("Montant\u202F: 1\u202F234\u202F500\u00A0FCFA");
    expect(text).toContain("expire dans 5 min (15 janv. à 12:05)");
    expect(view.keyboard?.inline_keyboard.flat().map((button) => button.text)).toEqual([
      "✅ Confirmer",
      "✖️ Annuler",
    ]);
  });

  it("titles a collection as a request and names the payer", () => {
    const text = read(confirmationPrompt(en, payout({ kind: "collection" }), NOW));
    expect(text).toContain("Confirm this collection request");
    expect(text).toContain("From: Jean-Paul Mbarga");
  });

  it.each(LOCALES)("escapes a hostile name and note (%s)", (locale) => {
    const t = translator(locale);
    const view = confirmationPrompt(t, payout({ recipientName: HOSTILE, note: HOSTILE }), NOW);

    expect(view.text).not.toContain("<script>");
    expect(view.text).toContain("&lt;b&gt;Eve&lt;/b&gt; &amp; &quot;Co&quot; &lt;script&gt;");
    expect(read(view).split(HOSTILE)).toHaveLength(3);
  });

  it("carries only the opaque payout id in the buttons, under Telegram's 64 bytes", () => {
    const longest = payout({ id: "a".repeat(40) });
    for (const p of [payout(), longest]) {
      const buttons = confirmationPrompt(en, p, NOW).keyboard?.inline_keyboard.flat() ?? [];
      const data = buttons.map((button) => ("callback_data" in button ? button.callback_data : ""));
      expect(data).toEqual([`c:${p.id}`, `x:${p.id}`]);
      for (const value of data) {
        expect(Buffer.byteLength(value, "utf8")).toBeLessThanOrEqual(64);
        expect(value).not.toContain(p.phone.slice(3));
        expect(value).not.toContain(String(p.amount));
      }
      expect(CALLBACK_PATTERN.confirm.exec(data[0] ?? "")?.[1]).toBe(p.id);
      expect(CALLBACK_PATTERN.cancel.exec(data[1] ?? "")?.[1]).toBe(p.id);
    }
  });

  it("never says less than one minute is left", () => {
    expect(read(confirmationPrompt(en, payout({ expiresAtMs: NOW + 5_000 }), NOW))).toContain(
      "expires in 1 min",
    );
  });
});

describe("CALLBACK patterns", () => {
  it("match the data CALLBACK builds and nothing forged", () => {
    expect(CALLBACK_PATTERN.confirm.test(CALLBACK.confirm("abcdEFGH_-12"))).toBe(true);
    expect(CALLBACK_PATTERN.cancel.test(CALLBACK.cancel("abcdEFGH_-12"))).toBe(true);
    expect(CALLBACK_PATTERN.history.test(CALLBACK.history(3))).toBe(true);
    expect(CALLBACK_PATTERN.confirm.test("c:short")).toBe(false);
    expect(CALLBACK_PATTERN.confirm.test(`c:${"a".repeat(41)}`)).toBe(false);
    expect(CALLBACK_PATTERN.confirm.test("c:abcdefgh:237670000001")).toBe(false);
    expect(CALLBACK_PATTERN.confirm.test("x:abcdefgh")).toBe(false);
  });
});

describe("payoutStateView", () => {
  const cases = LOCALES.flatMap((locale) =>
    PAYOUT_STATES.flatMap((state) =>
      (["disbursement", "collection"] as const).map((kind) => [locale, state, kind] as const),
    ),
  );

  it.each(cases)("renders %s %s (%s) as valid HTML without buttons", (locale, state, kind) => {
    const p = payout({
      state,
      kind,
      locale,
      recipientName: HOSTILE,
      paymentId: "pay_<1>",
      fee: 150,
      settledAtMs: NOW,
      errorStatusCode: 400,
      errorMessage: "bad <amount>",
    });
    const view = payoutStateView(translator(locale), p);

    expect(view.keyboard).toBeUndefined();
    const text = read(view);
    expect(text).toContain(HOSTILE);
    expect(text).toContain("pay_<1>");
    expect(text.split("\n")[0]?.length).toBeGreaterThan(3);
  });

  it("gives every state its own title in each language", () => {
    for (const t of [en, fr]) {
      const titles = PAYOUT_STATES.map(
        (state) => read(payoutStateView(t, payout({ state }))).split("\n")[0],
      );
      expect(new Set(titles).size).toBe(PAYOUT_STATES.length);
    }
  });

  it("says a pending payout was accepted and shows its payment id", () => {
    const text = read(payoutStateView(en, payout({ state: "pending", paymentId: "pay_123" })));
    expect(text).toContain("⏳ Pending");
    expect(text).toContain("Payment id: pay_123");
    expect(text).toContain("You will get a message as soon as it completes.");
  });

  it("says an unknown outcome is not retried and how to check it", () => {
    for (const t of [en, fr]) {
      const text = read(payoutStateView(t, payout({ state: "unknown" })));
      expect(text).toMatch(/NOT|PAS/);
      expect(text).toContain("/status");
      expect(text).toContain("/unknown");
    }
  });

  it("shows the fee and time of a completed payout", () => {
    const text = read(
      payoutStateView(en, payout({ state: "success", fee: 1500, settledAtMs: NOW })),
    );
    expect(text).toContain("Fee: 1,500 FCFA");
    expect(text).toContain("Time: 15 Jan, 12:00 UTC+1");
  });

  it("says nothing was paid for cancelled, expired and refused payouts", () => {
    for (const state of ["cancelled", "expired", "rejected_by_api"] as const) {
      expect(read(payoutStateView(en, payout({ state })))).toContain("Nothing was paid.");
    }
  });
});

describe("refusalReason", () => {
  it.each([
    [400, "disbursement", "found the request invalid: amount too small"],
    [401, "disbursement", "PAYMENT_API_KEY"],
    [403, "disbursement", "Payouts are disabled"],
    [403, "collection", "Collections are disabled"],
    [404, "disbursement", "no mobile money account"],
    [429, "disbursement", "too many requests"],
    [undefined, "disbursement", "could not be reached"],
    [502, "disbursement", "answered 502: amount too small"],
  ] as const)("explains %s for a %s", (status, kind, expected) => {
    const p = payout({
      state: "rejected_by_api",
      kind,
      errorStatusCode: status,
      errorMessage: "amount too small",
    });
    expect(read(refusalReason(en, p))).toContain(expected);
    expect(read(refusalReason(fr, p)).length).toBeGreaterThan(20);
  });

  it("escapes the API's message", () => {
    const p = payout({ errorStatusCode: 400, errorMessage: "<b>&" });
    expect(refusalReason(en, p)).toContain("&lt;b&gt;&amp;");
  });
});

describe("settlementNotice and stuckNotice", () => {
  it.each([
    ["success", "disbursement", "✅ Paid: 1,234,500 FCFA to Jean-Paul Mbarga"],
    ["success", "collection", "✅ Collected: 1,234,500 FCFA from Jean-Paul Mbarga"],
    [
      "failed",
      "disbursement",
      "❌ Failed: 1,234,500 FCFA for Jean-Paul Mbarga did not go through.",
    ],
    [
      "canceled",
      "collection",
      "⚪ Cancelled: 1,234,500 FCFA for Jean-Paul Mbarga was cancelled by the operator.",
    ],
  ] as const)("tells the payer about %s (%s)", (state, kind, first) => {
    const p = payout({ state, kind, paymentId: "pay_9", fee: 100, settledAtMs: NOW });
    const text = read(settlementNotice(en, p));
    expect(text.split("\n")[0]).toContain(first);
    expect(text).toContain("Number: +237 670 00 00 01 (MTN MoMo)");
    // Money moved only on success: a fee is shown then, and never on a failure.
    if (state === "success") expect(text).toContain("Fee: 100 FCFA");
    else expect(text).not.toContain("Fee");
    expect(text).toContain("Payment id: pay_9");
  });

  it.each([
    ["failed", "disbursement", "What to do: check the number and the name with the recipient"],
    ["failed", "collection", "What to do: check the number with the customer"],
    ["canceled", "disbursement", "What to do: the operator stopped it"],
    ["canceled", "collection", "What to do: the customer may have refused"],
  ] as const)("says what to do next about a %s %s, and what the API said", (state, kind, next) => {
    const quiet = read(settlementNotice(en, payout({ state, kind })));
    expect(quiet).toContain(next);
    expect(quiet).not.toContain("said");
    const p = payout({ state, kind, apiRemark: HOSTILE });
    for (const view of [settlementNotice(en, p), payoutStateView(en, p)]) {
      expect(view.text).not.toContain("<script>");
      expect(read(view)).toContain(`The payment service said: “${HOSTILE}”\n${next}`);
    }
  });

  it("tells nothing more than the outcome for a completed payout", () => {
    const p = payout({ state: "success", apiRemark: "Payment for services" });
    expect(read(settlementNotice(en, p))).not.toContain("Payment for services");
    expect(read(settlementNotice(en, p))).not.toContain("What to do");
  });

  it("says it in French too", () => {
    const p = payout({ state: "canceled", kind: "collection", locale: "fr", apiRemark: "Refusé" });
    const text = read(settlementNotice(fr, p));
    expect(text).toContain(
      "⚪ Annulé\u202F: l’opérateur a annulé l’opération de 1\u202F234\u202F500\u00A0FCFA",
    );
    expect(text).toContain("Le service de paiement a indiqué\u202F: «\u202FRefusé\u202F»");
    expect(text).toContain("À faire\u202F: le client a peut-être refusé");
  });

  it("escapes the name in French notices", () => {
    const p = payout({ state: "success", recipientName: HOSTILE, locale: "fr" });
    expect(read(settlementNotice(fr, p))).toContain(
      `Payé\u202F: 1\u202F234\u202F500\u00A0FCFA à ${HOSTILE}`,
    );
  });

  it("warns about a payout stuck in pending", () => {
    const text = read(stuckNotice(en, payout({ state: "pending" })));
    expect(text).toContain("Still pending");
    expect(text).toContain("Payment id: —");
  });
});

describe("problem texts", () => {
  const phoneProblems: PhoneProblem[] = [
    "empty",
    "not_digits",
    "wrong_country",
    "wrong_length",
    "not_mobile",
    "unsupported_operator",
  ];

  it.each(LOCALES)(
    "has a distinct, valid text for every phone and amount problem (%s)",
    (locale) => {
      const t = translator(locale);
      const phones = phoneProblems.map((problem) => read(phoneProblemText(t, problem, "nexttel")));
      const amounts = AMOUNT_PROBLEMS.map((problem) =>
        read(amountProblemText(t, problem, MAX_AMOUNT_XAF)),
      );
      expect(new Set([...phones, ...amounts]).size).toBe(phones.length + amounts.length);
    },
  );

  it("names the operator and the limit", () => {
    expect(read(phoneProblemText(en, "unsupported_operator", "camtel"))).toContain(
      "Camtel numbers",
    );
    expect(read(amountProblemText(en, "too_large", MAX_AMOUNT_XAF))).toContain("5,000,000 FCFA");
    expect(read(amountProblemText(fr, "too_large", MAX_AMOUNT_XAF))).toContain(
      "5\u202F000\u202F000\u00A0FCFA",
    );
  });

  it("adds the right example to a bad /pay or /collect", () => {
    const failure = { reason: "bad_amount", problem: "negative" } as const;
    expect(read(prepareFailureText(en, failure, "pay", MAX_AMOUNT_XAF))).toBe(
      "The amount cannot be negative.\nExample: /pay 670000001 5000 delivery (number, amount, optional note).",
    );
    expect(read(prepareFailureText(en, failure, "collect", MAX_AMOUNT_XAF))).toContain(
      "/collect 670000001",
    );
  });

  it("explains an unavailable operator, a number without account and an API failure", () => {
    expect(
      read(
        prepareFailureText(
          en,
          { reason: "operator_unavailable", operator: "orange", kind: "collection" },
          "collect",
          MAX_AMOUNT_XAF,
        ),
      ),
    ).toContain("Orange Money is not accepting collections right now");
    expect(
      read(
        prepareFailureText(
          en,
          { reason: "no_account", phone: "237670000004" },
          "pay",
          MAX_AMOUNT_XAF,
        ),
      ),
    ).toContain("+237 670 00 00 04 has no mobile money account");
  });

  it("names the role in the user's language when refusing a payment", () => {
    expect(read(cannotPayText(en, "viewer"))).toBe(
      "Your role (viewer) can read payments but cannot make them.",
    );
    expect(read(cannotPayText(fr, "viewer"))).toContain("Votre rôle (lecteur)");
  });
});

describe("availabilityView", () => {
  it("shows both operators, a suspended operation and one the API does not list", () => {
    const entries: AvailabilityEntry[] = [
      { operator: "mtn", operation: { type: "disbursement", status: "OPERATIONAL" } },
      { operator: "mtn", operation: { type: "collection", status: "<SUSPENDED>" } },
      { operator: "orange", operation: { type: "disbursement", status: "OPERATIONAL" } },
    ];
    expect(read(availabilityView(en, entries))).toBe(
      [
        "📶 Operators right now",
        "",
        "MTN MoMo: payouts ✅ Available; collections ⛔ Unavailable (code <SUSPENDED>)",
        "Orange Money: payouts ✅ Available; collections ❔ Not listed",
      ].join("\n"),
    );
    expect(read(availabilityView(fr, entries))).toContain(
      "Orange Money\u202F: paiements ✅ Disponible\u202F; encaissements ❔ Non communiqué",
    );
    const suspended: AvailabilityEntry[] = [
      { operator: "mtn", operation: { type: "collection", status: "SUSPENDED" } },
    ];
    expect(read(availabilityView(fr, suspended))).toContain("encaissements ⛔ Suspendu");
  });
});

describe("paymentView", () => {
  it.each([
    ["pending", "Status: ⏳ Pending"],
    ["success", "Status: ✅ Completed"],
    ["failed", "Status: ❌ Failed"],
    ["canceled", "Status: ⚪ Cancelled"],
  ])("shows the status %s as a capitalised word", (status, shown) => {
    expect(read(paymentView(en, { id: "pay_1", status }))).toContain(shown);
  });

  it("shows a payment as the API reports it", () => {
    const text = read(
      paymentView(fr, {
        id: "pay_1",
        status: "success",
        paymentType: "disbursement",
        amount: 5000,
        fee: 50,
        phoneNumber: "237690000001",
        telecomOperator: "orange",
        updatedAt: new Date(NOW).toISOString(),
      }),
    );
    expect(text).toContain("Transaction pay_1");
    expect(text).toContain("État\u202F: ✅ Effectué");
    expect(text).toContain("Montant\u202F: 5\u202F000\u00A0FCFA");
    expect(text).toContain("+237 690 00 00 01 (Orange Money)");
    expect(text).toContain("Dernière mise à jour\u202F: 15 janv. à 12:00");
  });
});

describe("historyView and payoutLine", () => {
  it("pages with h:<page> buttons and escapes names", () => {
    const items = [payout({ recipientName: HOSTILE, state: "success" })];
    const view = historyView(en, { items, total: 25, page: 1, pageSize: 10 }, true);

    const text = read(view);
    expect(text).toContain("All payouts (page 2 of 3)");
    expect(text).toContain(HOSTILE);
    // Nobody named the initiator to the bot: the id stands in.
    expect(text).toContain("by user 1002");
    const buttons = view.keyboard?.inline_keyboard.flat() ?? [];
    expect(buttons.map((b) => ("callback_data" in b ? b.callback_data : ""))).toEqual([
      "h:0",
      "h:2",
    ]);
  });

  it("says when there is nothing yet", () => {
    expect(read(historyView(fr, { items: [], total: 0, page: 0, pageSize: 10 }, false))).toBe(
      "Aucune opération pour l’instant.",
    );
  });

  it("writes one line per payout: payout or collection, masked number, time, reference", () => {
    expect(read(payoutLine(en, payout({ state: "pending" })))).toBe(
      "⏳ Pending · Payout of 1,234,500 FCFA to Jean-Paul Mbarga (67• •• •0 01) · 15 Jan, 12:00 UTC+1 · Zx9_Kq-3LmNpQr8sTuVw",
    );
    expect(read(payoutLine(fr, payout({ kind: "collection", state: "success" }), "Ama"))).toBe(
      "✅ Effectué · Encaissement de 1\u202F234\u202F500\u00A0FCFA, client Jean-Paul Mbarga (67• •• •0 01) · 15 janv. à 12:00 · par Ama · Zx9_Kq-3LmNpQr8sTuVw",
    );
  });

  it("names who made each payout when the bot knows their name, else their id", () => {
    const items = [payout({ initiatorId: 7 }), payout({ id: "other-payout-id", initiatorId: 8 })];
    const names = new Map([[7, "<b>Ama</b>"]]);
    const view = historyView(en, { items, total: 2, page: 0, pageSize: 10 }, true, names);

    expect(view.text).toContain("by &lt;b&gt;Ama&lt;/b&gt;");
    expect(read(view)).toContain("by <b>Ama</b> · Zx9_Kq-3LmNpQr8sTuVw");
    expect(read(view)).toContain("by user 8 · other-payout-id");
    // A payer's own list: no "by".
    const own = read(historyView(en, { items, total: 2, page: 0, pageSize: 10 }, false, names));
    expect(own).not.toContain(" by ");
  });
});

describe("t.time", () => {
  it("shows Cameroon time with its offset in English, and as Douala writes it in French", () => {
    expect(en.time(NOW)).toBe("15 Jan, 12:00 UTC+1");
    expect(fr.time(NOW)).toBe("15 janv. à 12:00");
    expect(fr.zoneName).toBe("heure du Cameroun (UTC+1)");
    expect(en.zoneName).toBe("Cameroon time (UTC+1)");
  });

  it("shows the configured zone, its offset and its daylight saving time", () => {
    expect(translator("en", "UTC").time(NOW)).toBe("15 Jan, 11:00 UTC");
    expect(translator("fr", "America/New_York").time(NOW)).toBe("15 janv. à 06:00 UTC-5");
    expect(translator("fr", "America/New_York").zoneName).toBe(
      "heure de l’Est nord-américain (UTC-5)",
    );
    expect(translator("en", "Europe/Paris").time(Date.UTC(2024, 6, 15, 11, 0))).toBe(
      "15 Jul, 13:00 UTC+2",
    );
  });

  it("puts the zone in every view that shows a time", () => {
    const kolkata = translator("en", "Asia/Kolkata");
    const prompt = read(confirmationPrompt(kolkata, payout(), NOW));
    expect(prompt).toContain("(15 Jan, 16:35 UTC+5:30)");
  });
});
