/**
 * Cards and notices go out in the language of the person who reads them, not of the
 * person who caused them: an approver who wrote to the bot from a French Telegram app
 * (and never chose with /lang) gets a French card for an English payer's request, an
 * English approver gets an English card for a French payer's one, and /lang wins over both.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import {
  isNewReplyIn,
  isPromptIn,
  isPromptReading,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
} from "../../support/harness.js";

const APPROVALS = { APPROVAL_THRESHOLD_XAF: "100000" };
const DISBURSE = { method: "POST", path: "/disburse" } as const;

function isCardIn(chatId: number) {
  return (m: SentMessage) => isPromptIn(chatId)(m) && m.editCount === 0;
}

/**
 * `payerLanguage` pays 250,000 FCFA and confirms; resolves with the cards of `readers`
 * (the people who wrote to the bot: Telegram lets a bot write only to them).
 */
async function askApproval(h: Harness, payerLanguage: "en" | "fr", readers: readonly number[]) {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: payerLanguage });
  const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 loyer");
  const cards = Promise.all(readers.map((id) => h.emulator.waitForMessage(isCardIn(id))));
  await payer.pressButton(prompt, 0);
  return { payer, prompt, cards: await cards };
}

describe("the language of cards and notices sent unasked", () => {
  const h = harnessPerTest({ env: APPROVALS });

  it("writes each approver's card in their own Telegram language, not the payer's", async () => {
    // Ama's Telegram is in English, Awa's in French; each wrote to the bot once, neither used /lang.
    const ama = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const awa = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    for (const user of [ama, awa]) await sendAndWait(h.emulator, user, "/help");

    const { prompt, cards } = await askApproval(h, "fr", [APPROVER_ID, ADMIN_ID]);
    const [approverCard, adminCard] = cards;
    if (!approverCard || !adminCard) throw new Error("a card is missing");
    expect(plainText(prompt)).toContain("Confirmez ce paiement");
    expect(plainText(approverCard)).toContain("Approval needed: a payout");
    expect(plainText(approverCard)).toContain("250,000 FCFA");
    expect(plainText(adminCard)).toContain("Approbation demandée\u202F: un paiement");
    expect(plainText(adminCard)).toContain("250\u202F000\u00A0FCFA");
    expect(adminCard.replyMarkup?.flat().map((button) => button.text)).toEqual([
      "✅ Approuver",
      "🚫 Refuser",
    ]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    // Awa approves from her French card: one payout goes out, and Paul is told in French.
    const paid = h.emulator.waitForMessage(
      (m) => isNewReplyIn(PAYER_ID)(m) && plainText(m).includes("Payé"),
    );
    const approved = h.emulator.waitForMessage(isPromptReading(adminCard, "Approuvé par Awa"));
    await awa.pressButton(adminCard, "✅ Approuver");
    await approved;
    expect(plainText(await paid)).toContain(
      "Payé\u202F: 250\u202F000\u00A0FCFA à Jean-Paul Mbarga",
    );
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("gives a French card to a French approver when the payer writes in English", async () => {
    const ama = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "fr-CM" });
    await sendAndWait(h.emulator, ama, "/help");

    const { prompt, cards } = await askApproval(h, "en", [APPROVER_ID]);
    const [approverCard] = cards;
    expect(plainText(prompt)).toContain("Confirm this payout");
    if (!approverCard) throw new Error("no card");
    expect(plainText(approverCard)).toContain("Approbation demandée\u202F: un paiement");
    expect(plainText(approverCard)).toContain("Demandé par Paul le ");
  });

  it("follows /lang over the Telegram language", async () => {
    const ama = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "fr" });
    expect(plainText(await sendAndWait(h.emulator, ama, "/lang en"))).toBe(
      "Language set to English.",
    );

    const { cards } = await askApproval(h, "fr", [APPROVER_ID]);
    const [approverCard] = cards;
    expect(approverCard && plainText(approverCard)).toContain("Approval needed: a payout");
  });
});
