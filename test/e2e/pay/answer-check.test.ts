/**
 * A 201 is checked against the request it answers. A signed answer that describes another
 * payout's payment must never be recorded for this one: the payer would be told "paid"
 * with someone else's money, and two payouts would settle on one payment.
 */
import { describe, expect, it, vi } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { confirmPayout, isPromptReading, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

describe("a 201 checked against its request", () => {
  const h = harnessPerTest();

  /** Payout A, paid normally; then the sandbox answers the next POST with A's payment. */
  async function answerNextWithPaymentOfA(): Promise<{ paymentIdOfA: string }> {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const { payout } = await confirmPayout(h, admin, "/pay 237670000001 5000");
    const paymentOfA = h.sandbox.getPayment(payout.paymentId);
    if (!paymentOfA) throw new Error("the sandbox does not know payment A");
    h.sandbox.injectFault({
      method: "POST",
      path: "/disburse",
      status: 201,
      body: paymentOfA,
      afterHandling: true,
    });
    return { paymentIdOfA: payout.paymentId };
  }

  async function confirmAndReadUnknown(command: string) {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, command);
    const alert = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Check this payout"),
    );
    const unknown = h.emulator.waitForMessage(isPromptReading(prompt, "Outcome unknown"));
    await payer.pressButton(prompt, 0);
    await unknown;
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    return { payoutB: items[0], alert: await alert, prompt };
  }

  it("marks unknown, and alerts the admins about, a payout answered with another number and amount", async () => {
    const { paymentIdOfA } = await answerNextWithPaymentOfA();
    const { payoutB, alert } = await confirmAndReadUnknown("/pay 237670000002 7000");

    expect(payoutB?.state).toBe("unknown");
    expect(payoutB?.paymentId).toBeUndefined();
    expect(plainText(alert)).toContain("7,000 FCFA");
    const owner = await h.app.stores.payouts.findByPaymentId(paymentIdOfA);
    expect(owner?.initiatorId).toBe(ADMIN_ID);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(2);
  });

  it("never attaches a payment already recorded for another payout, even for the same number and amount", async () => {
    const { paymentIdOfA } = await answerNextWithPaymentOfA();
    const { payoutB, prompt } = await confirmAndReadUnknown("/pay 237670000001 5000");
    // The answer passed its own checks and showed "Pending" while its record was written;
    // the record found the payment taken, and that is what the prompt reads now.
    await vi.waitFor(() => {
      const shown = plainText(h.emulator.message(PAYER_ID, prompt.messageId) ?? prompt);
      expect(shown).toContain("Outcome unknown");
      expect(shown).not.toContain("Pending");
    });

    expect(payoutB?.state).toBe("unknown");
    expect(payoutB?.paymentId).toBeUndefined();
    const owner = await h.app.stores.payouts.findByPaymentId(paymentIdOfA);
    expect(owner?.initiatorId).toBe(ADMIN_ID);
    expect(owner?.id).not.toBe(payoutB?.id);
  });
});
