/**
 * A payer withdraws their own request while it waits for approval, end to end: the button
 * on their "waiting for approval" message cancels it (only theirs), the amount held against
 * the daily limit comes back, the approvers' cards say it was withdrawn (no buttons left),
 * an Approve pressed afterwards pays nothing, and /audit says who withdrew it.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("withdrawing a request for approval", () => {
  const h = harnessPerTest({
    env: { APPROVAL_THRESHOLD_XAF: "100000", PAYER_DAILY_LIMIT_XAF: "300000" },
  });

  it("cancels it, gives its amount back, updates the cards, and audits who withdrew it", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    for (const user of [payer, approver, admin]) await sendAndWait(h.emulator, user, "/help");
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
    const cardSent = h.emulator.waitForMessage(
      (m) => isPromptIn(APPROVER_ID)(m) && plainText(m).includes("Approval needed"),
    );
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    const waitingPrompt: SentMessage = await waiting;
    const card = await cardSent;
    expect(plainText(await sendAndWait(h.emulator, payer, "/limits"))).toContain(
      "You today: 250,000 FCFA used, 50,000 FCFA left",
    );

    // Someone else's press on it (forged) withdraws nothing.
    const forged = await admin.pressCallbackData(
      waitingPrompt.messageId,
      waitingPrompt.replyMarkup?.flat()[0]?.callback_data ?? "",
    );
    expect((await h.emulator.waitForCallbackAnswer(forged.callbackQueryId)).text).toBe(
      "Only the person who asked can withdraw this request.",
    );

    const cardEdited = h.emulator.waitForMessage(
      (m) =>
        m.chatId === APPROVER_ID &&
        m.messageId === card.messageId &&
        plainText(m).includes("Withdrawn by Paul"),
    );
    const withdrawn = h.emulator.waitForMessage(isPromptReading(prompt, "Withdrawn by Paul"));
    const press = await payer.pressButton(waitingPrompt, "↩️ Withdraw my request");
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Withdrawn. Nothing will be paid.",
    );
    expect((await withdrawn).replyMarkup ?? []).toHaveLength(0);
    expect((await cardEdited).replyMarkup ?? []).toHaveLength(0);
    const stored = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    expect(stored.items[0]?.state).toBe("cancelled");
    expect(plainText(await sendAndWait(h.emulator, payer, "/limits"))).toContain(
      "You today: 0 FCFA used, 300,000 FCFA left",
    );

    // An Approve pressed afterwards on the first card decides nothing.
    const late = await approver.pressCallbackData(
      card.messageId,
      card.replyMarkup?.flat()[0]?.callback_data ?? "",
    );
    expect((await h.emulator.waitForCallbackAnswer(late.callbackQueryId)).text).toBe(
      "Already decided.",
    );
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    const audit = plainText(await sendAndWait(h.emulator, admin, "/audit"));
    expect(audit).toContain("Withdrawn by who asked");
  });
});
