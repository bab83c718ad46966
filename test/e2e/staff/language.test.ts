/**
 * Languages, end to end: a French Telegram user gets French (prompt, buttons, amounts as
 * French writes them, errors), /lang switches and is remembered, and a bad /lang gets the
 * usage.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { formatAmount } from "../../../src/model/money.js";
import { isNewReplyIn, isPromptIn, sendAndWait } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID, VIEWER_ID } from "../../support/harness.js";

const isPrompt = isPromptIn(PAYER_ID);

describe("languages, end to end", () => {
  const h = harnessPerTest();

  function french(id = PAYER_ID) {
    return h.emulator.user({ id, firstName: "Amadou", languageCode: "fr" });
  }

  async function reply(text: string, until = isNewReplyIn(PAYER_ID), id = PAYER_ID) {
    return sendAndWait(h.emulator, french(id), text, until);
  }

  it("gives a French user a French prompt, buttons and amount, and a French result", async () => {
    const prompt = await reply("/pay 670000001 5000 livraison", isPrompt);

    const shown = plainText(prompt);
    expect(shown).toContain("Confirmez ce paiement");
    expect(shown).toContain("Bénéficiaire\u202F: Jean-Paul Mbarga");
    expect(shown).toContain("Numéro\u202F: +237 670 00 00 01 (MTN MoMo)");
    expect(formatAmount(5000, "fr")).toBe("5\u202F000\u00A0FCFA");
    expect(shown).toContain("Montant\u202F: 5\u202F000\u00A0FCFA");
    expect(shown).toContain("Motif\u202F: livraison");
    expect(shown).toMatch(/Sans confirmation, cette demande expire dans \d+ min/);
    expect(prompt.replyMarkup?.flat().map((button) => button.text)).toEqual([
      "✅ Confirmer",
      "✖️ Annuler",
    ]);

    const pending = h.emulator.waitForMessage(
      (m) => m.messageId === prompt.messageId && plainText(m).includes("En cours chez l’opérateur"),
    );
    const press = await french().pressButton(prompt, "✅ Confirmer");
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Transmission en cours…",
    );
    expect(plainText(await pending)).toContain("ID de transaction\u202F:");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);

    const notice = await h.emulator.waitForMessage(
      (m) => isNewReplyIn(PAYER_ID)(m) && plainText(m).includes("Payé"),
    );
    expect(plainText(notice)).toContain("Payé\u202F: 5\u202F000\u00A0FCFA à Jean-Paul Mbarga");
  });

  it("explains bad input in French, with the French example", async () => {
    const answer = plainText(await reply("/pay 670000001 12,5"));

    expect(answer).toContain("Les montants en FCFA sont des nombres entiers");
    expect(answer).toContain("Exemple\u202F: /pay 670000001 5000 livraison");
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });

  it("asks the dialog questions in French", async () => {
    expect(plainText(await reply("/pay"))).toContain("Qui doit recevoir l’argent\u202F?");
    expect(plainText(await reply("12"))).toContain("Réessayez, ou /cancel pour arrêter.");
    expect(plainText(await reply("670000001"))).toContain("Quel montant, en FCFA\u202F?");
    expect(plainText(await reply("/cancel"))).toBe("Annulé. Rien n’a été fait.");
  });

  it("names the viewer's role in French when refusing a payment", async () => {
    const answer = await reply("/pay 670000001 5000", isNewReplyIn(VIEWER_ID), VIEWER_ID);

    expect(plainText(answer)).toBe(
      "Votre rôle (lecteur) permet de consulter les opérations, pas d’en faire.",
    );
  });

  it("switches to English with /lang en and remembers it for the next messages", async () => {
    expect(plainText(await reply("/lang en"))).toBe("Language set to English.");
    expect(await h.app.stores.sessions.getLocale(PAYER_ID)).toBe("en");

    // The same user, still with a French Telegram language, on a new message.
    const prompt = await reply("/pay 670000001 5000", isPrompt);
    expect(plainText(prompt)).toContain("Confirm this payout");
    expect(plainText(prompt)).toContain("5,000 FCFA");
    expect(prompt.replyMarkup?.flat().map((button) => button.text)).toEqual([
      "✅ Confirm",
      "✖️ Cancel",
    ]);

    expect(plainText(await reply("/lang fr"))).toBe("Langue choisie\u202F: français.");
    expect(plainText(await reply("/help"))).toContain("votre rôle\u202F: payeur");
  });

  it("answers an unsupported /lang with the usage and changes nothing", async () => {
    const answer = plainText(await reply("/lang de"));

    expect(answer).toBe("Choisissez une langue\u202F: /lang en ou /lang fr.");
    expect(await h.app.stores.sessions.getLocale(PAYER_ID)).toBeNull();
    expect(plainText(await reply("/lang"))).toContain("/lang en");
  });
});
