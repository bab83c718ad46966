/**
 * Every message that shows a payout's state follows it: after an approval, the approvers'
 * cards ("Now: …") and the payer's prompt are edited again when the payment settles, not
 * left on "Pending" beside a separate Paid notice.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

/** An approval card in `chatId`, in any language: its first button approves. */
const isCardIn = (chatId: number) => (m: SentMessage) =>
  isPromptIn(chatId)(m) && (m.replyMarkup?.flat()[0]?.callback_data ?? "").startsWith("a:");

describe("messages that show an approved payout's state", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("end on its final state: the approver's card, the other cards and the payer's prompt", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    for (const user of [payer, approver, admin]) await sendAndWait(h.emulator, user, "/help");
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
    const cards = Promise.all(
      [APPROVER_ID, ADMIN_ID].map((id) => h.emulator.waitForMessage(isCardIn(id))),
    );
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const [card, adminCard] = await cards;
    if (!card || !adminCard) throw new Error("no cards");
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
      10_000,
    );
    await approver.pressButton(card, "✅ Approve");
    await paid;

    const text = (chatId: number, messageId: number) =>
      plainText(h.emulator.message(chatId, messageId) ?? card);
    await expect.poll(() => text(APPROVER_ID, card.messageId)).toMatch(/Now: ✅ Completed/);
    await expect
      .poll(() => text(ADMIN_ID, adminCard.messageId))
      .toMatch(/État actuel\s:\s✅ Effectué/);
    await expect.poll(() => text(PAYER_ID, prompt.messageId)).toMatch(/^✅ Completed/);
    expect(text(PAYER_ID, prompt.messageId)).not.toContain("Pending");
    // No message to the payer is left saying "Pending" once it completed.
    const stale = h.emulator.messages(PAYER_ID).filter((m) => plainText(m).includes("Pending"));
    expect(stale.map(plainText)).toEqual([]);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });
});
