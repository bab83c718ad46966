/**
 * The duplicate rule at approval, end to end: a payout that repeats an earlier one (same
 * number and amount within DUPLICATE_WINDOW_MINUTES) says so on the approver's card and in
 * /approvals as plainly as on the payer's prompt, and its Approve reads "Approve anyway".
 * Approve asks the rule again at the press: a repeat that appeared after a card was sent
 * decides nothing until the card has shown it.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { APPROVER_ID, type Harness, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

function isCardIn(chatId: number) {
  return (m: SentMessage) => isPromptIn(chatId)(m) && plainText(m).includes("Approval needed");
}

function buttons(message: SentMessage | undefined): string[] {
  return message?.replyMarkup?.flat().map((button) => button.text) ?? [];
}

/** `payer` asks for `command` and confirms it; resolves with the approver's new card. */
async function askApproval(h: Harness, command: string, confirm: string): Promise<SentMessage> {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const before = h.emulator.messages(APPROVER_ID).length;
  const prompt = await showPrompt(h.emulator, payer, command);
  const card = h.emulator.waitForMessage(
    (m) => isCardIn(APPROVER_ID)(m) && h.emulator.messages(APPROVER_ID).length > before,
  );
  const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
  await payer.pressButton(prompt, confirm);
  await waiting;
  return card;
}

describe("duplicates at approval", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("shows the earlier payout on the card and in /approvals, and Approve re-checks at the press", async () => {
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await sendAndWait(h.emulator, approver, "/help");
    await sendAndWait(h.emulator, payer, "/help");

    const first = await askApproval(h, "/pay 670000001 250000 rent", "✅ Confirm");
    expect(plainText(first)).not.toContain("PAID ALREADY?");
    expect(buttons(first)).toEqual(["✅ Approve", "🚫 Reject"]);

    // The same again: the payer is warned, and so is the approver, as plainly.
    const second = await askApproval(h, "/pay 670000001 250000 rent", "⚠️ Pay again");
    const secondText = plainText(second);
    expect(secondText).toMatch(
      /^⚠️⚠️ PAID ALREADY\? The same amount went to this number on .+, by Paul \(🕒 Waiting for approval\)\./,
    );
    expect(buttons(second)).toEqual(["⚠️ Approve anyway", "🚫 Reject"]);

    // /approvals shows each with the other it repeats.
    const listed = h.emulator.waitForMessage(
      (m) => isCardIn(APPROVER_ID)(m) && m.messageId > second.messageId + 1,
    );
    await approver.sendText("/approvals");
    const card = await listed;
    expect(plainText(card)).toContain("PAID ALREADY?");
    expect(buttons(card)).toEqual(["⚠️ Approve anyway", "🚫 Reject"]);

    // The first card was sent before the repeat existed: its plain Approve decides nothing,
    // and the card is redrawn with the repeat and "Approve anyway".
    const redrawn = h.emulator.waitForMessage(
      (m) => m.messageId === first.messageId && m.chatId === APPROVER_ID && m.editCount > 0,
    );
    const press = await approver.pressButton(first, "✅ Approve");
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toContain("This repeats an earlier payout your card did not show");
    const shown = await redrawn;
    expect(plainText(shown)).toContain("PAID ALREADY?");
    expect(buttons(shown)).toEqual(["⚠️ Approve anyway", "🚫 Reject"]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    // Approve anyway, on the card that showed it: one payment.
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
      10_000,
    );
    const anyway = await approver.pressButton(shown, "⚠️ Approve anyway");
    expect((await h.emulator.waitForCallbackAnswer(anyway.callbackQueryId)).text).toBe(
      "Approved. Sending…",
    );
    await paid;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    const decided = (await h.app.stores.audit.recent(50)).find(
      (entry) => entry.action === "approve",
    );
    expect(decided?.details?.duplicateOf).toEqual(expect.any(String));
  });
});
