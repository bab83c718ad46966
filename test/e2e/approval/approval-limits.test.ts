/**
 * Approval and the daily limits together, end to end: a payout waiting for approval has
 * reserved its amount (the payer's /limits shows it), and its rejection gives the amount
 * back at once, so a new payout fits again; and a payout nobody else may approve says so.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyWith, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

describe("approval with daily limits", () => {
  const h = harnessPerTest({
    env: { APPROVAL_THRESHOLD_XAF: "100000", PAYER_DAILY_LIMIT_XAF: "300000" },
  });

  it("reserves a payout waiting for approval, and gives it back when it is rejected", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    await sendAndWait(h.emulator, approver, "/help");
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
    const card = h.emulator.waitForMessage(
      (m) => m.chatId === APPROVER_ID && plainText(m).includes("Approval needed"),
    );
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const reserved = plainText(await sendAndWait(h.emulator, payer, "/limits"));
    expect(reserved).toContain("You today: 250,000 FCFA used, 50,000 FCFA left");
    // Over what is left while it waits: refused.
    const refused = plainText(await sendAndWait(h.emulator, payer, "/pay 690000001 60000"));
    expect(refused).toContain("50,000 FCFA left today");

    const rejected = await approver.pressButton(await card, "🚫 Reject");
    await h.emulator.waitForCallbackAnswer(rejected.callbackQueryId);
    // The payer's "Rejected" notice may come first in this chat: wait for the /limits answer.
    const freed = plainText(
      await sendAndWait(h.emulator, payer, "/limits", isNewReplyWith(PAYER_ID, "You today")),
    );
    expect(freed).toContain("You today: 0 FCFA used, 300,000 FCFA left");
    const fits = await showPrompt(h.emulator, payer, "/pay 690000001 60000");
    expect(plainText(fits)).toContain("60,000 FCFA");
  });
});

describe("approval with nobody else to approve", () => {
  const h = harnessPerTest({
    env: { APPROVAL_THRESHOLD_XAF: "100000", STAFF: `${ADMIN_ID}:admin,${PAYER_ID}:payer` },
  });

  it("tells the only admin that nobody else can approve their payout yet", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, admin, "/pay 670000001 200000");
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await admin.pressButton(prompt, 0);
    expect(plainText(await waiting)).toContain(
      "Nobody else can approve it yet: ask an admin to make someone an approver (/staff).",
    );
  });
});
