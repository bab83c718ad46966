/**
 * REVIEW FINDING (adversarial review): /status by payment id shows a payer another staff
 * member's payout. The bot finds the payout, sees the asker may not see it (maySee), and then
 * asks the Payment API with the same id anyway, which answers its amount, recipient's number
 * and state. This test asserts the correct behaviour, so it fails until the hole is closed.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const h = harnessPerTest();

describe("review: /status and another payer's payout", () => {
  it("does not show a payer the amount and number of a payout they did not make, asked by its payment id", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Ama", languageCode: "en" });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, admin, "/pay 237670000001 5000");
    await pressAndWait(
      h.emulator,
      admin,
      prompt,
      (m) => m.chatId === admin.id && plainText(m).startsWith("✅ Paid:"),
    );
    const { items } = await h.app.stores.payouts.list({ userId: ADMIN_ID, offset: 0, limit: 1 });
    const paymentId = items[0]?.paymentId ?? "";
    expect(paymentId).not.toBe("");

    // The bot's own reads of it (the callback's re-read, a poll) came before: none more.
    const reads = () => h.sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` });
    const readsBefore = reads();
    const reply = plainText(
      await sendAndWait(h.emulator, payer, `/status ${paymentId}`, (m) => m.chatId === payer.id),
    );
    expect(reply).not.toContain("5,000");
    expect(reply).not.toContain("670 00 00 01");
    expect(reply).toBe(`No payment with id ${paymentId}.`);
    expect(reads()).toBe(readsBefore);
  });
});
