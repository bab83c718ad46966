/**
 * The duplicate warning and retired prompts end to end: a payout repeating the same amount
 * to the same number within DUPLICATE_WINDOW_MINUTES opens with a warning nobody can miss,
 * in both languages, and its Confirm reads "Pay again" (one press pays); a new /pay retires
 * the person's older open prompt; /cancel cancels the open prompt.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import {
  isPromptReading,
  payAndConfirm,
  pressAndWait,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import { APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

function buttonTexts(message: SentMessage): string[] {
  return (message.replyMarkup ?? []).flat().map((button) => button.text);
}

describe("duplicate warnings and retired prompts, end to end", () => {
  const h = harnessPerTest();

  it("warns before paying the same amount to the same number again, and pays again in one press", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 670000003 5000 courier");

    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, approver, "/pay +237 670 00 00 03 5 000");
    const text = plainText(prompt);
    expect(text).toMatch(
      /^⚠️⚠️ PAID ALREADY\? The same amount went to this number on \d{2} \w{3}, \d{2}:\d{2} UTC\+1, by Paul \(⏳ Pending\)\. Pay again only if this is a second, separate payment\.\n\n💸 Confirm this payout/,
    );
    expect(buttonTexts(prompt)).toEqual(["⚠️ Pay again", "✖️ Cancel"]);

    await pressAndWait(h.emulator, approver, prompt, "Pending", { button: "⚠️ Pay again" });
    expect(h.sandbox.countRequests(DISBURSE)).toBe(2);
    const [entry] = (await h.app.stores.audit.recent(10)).filter((e) => e.action === "confirm");
    expect(entry?.details?.duplicateOf).toEqual(expect.any(String));

    // Another amount, or the same amount elsewhere: no warning.
    const other = await showPrompt(h.emulator, approver, "/pay 670000003 5001");
    expect(plainText(other)).not.toContain("PAID ALREADY");
    expect(buttonTexts(other)[0]).toBe("✅ Confirm");
  });

  it("warns in French too, with the button to match", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/collect 690000003 12000");
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "fr" });
    const prompt = await showPrompt(h.emulator, approver, "/collect 690000003 12000");
    expect(plainText(prompt)).toMatch(
      /^⚠️⚠️ DOUBLON\u202F\? Une demande du même montant à ce numéro a déjà été créée le .+ par Paul\. Son état\u202F: ⏳ En cours chez l’opérateur\./,
    );
    expect(buttonTexts(prompt)).toEqual(["⚠️ Redemander", "✖️ Annuler"]);
  });

  it("does not warn of a payout that paid nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const failed = await payAndConfirm(h.emulator, payer, "/pay 670000002 5000");
    await h.emulator.waitForMessage(isPromptReading(failed, "Failed"), 10_000);
    const again = await showPrompt(h.emulator, payer, "/pay 670000002 5000");
    expect(plainText(again)).not.toContain("PAID ALREADY");
  });

  it("retires the older prompt of a new /pay, and /cancel cancels the one left", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const older = await showPrompt(h.emulator, payer, "/pay 670000001 5000");
    const retired = h.emulator.waitForMessage(
      isPromptReading(older, "Replaced by your newer request."),
    );
    const newer = await showPrompt(h.emulator, payer, "/collect 690000001 7000");
    const oldNow = await retired;
    expect(plainText(oldNow)).toMatch(
      /^✖️ Cancelled[\s\S]*Nothing was paid\.\n\nReplaced by your newer request\.$/,
    );
    expect(oldNow.replyMarkup ?? []).toHaveLength(0);
    // A press kept from before finds it handled.
    const late = await payer.pressCallbackData(
      older.messageId,
      older.replyMarkup?.[0]?.[0]?.callback_data ?? "",
    );
    expect((await h.emulator.waitForCallbackAnswer(late.callbackQueryId)).text).toBe(
      "Already handled.",
    );

    const cancelled = h.emulator.waitForMessage(isPromptReading(newer, "Cancelled"));
    expect(plainText(await sendAndWait(h.emulator, payer, "/cancel"))).toBe(
      "Cancelled. Nothing was done.",
    );
    expect((await cancelled).replyMarkup ?? []).toHaveLength(0);
    expect(plainText(await sendAndWait(h.emulator, payer, "/cancel"))).toBe(
      "There is nothing to cancel.",
    );
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
    expect(items.map((payout) => payout.state)).toEqual(["cancelled", "cancelled"]);
    expect(
      h.sandbox.countRequests(DISBURSE) +
        h.sandbox.countRequests({ method: "POST", path: "/collect" }),
    ).toBe(0);
  });
});
