import { describe, expect, it } from "vitest";
import { confirmationPrompt } from "../../../../src/bot/views/pay.js";
import { stepUpUrl, withPinApprove, withPinConfirm } from "../../../../src/bot/views/step-up.js";
import { stripHtml, translator } from "../../../../src/i18n.js";
import { acceptedPayout } from "../../../support/payouts.js";

const STEP_UP = { thresholdXaf: 100_000, webAppUrl: "https://pay.example.com/app/?x=1" };
const t = translator("en");
const NOW = Date.UTC(2026, 10, 25, 12);

describe("the step-up's buttons", () => {
  const payout = acceptedPayout(NOW, { state: "awaiting_confirmation", amount: 150_000 });
  const prompt = confirmationPrompt(t, payout, NOW);

  it("opens the Mini App on the payout from a private chat, Cancel kept", () => {
    const view = withPinConfirm(t, prompt, payout.id, STEP_UP, true);
    expect(view.keyboard?.inline_keyboard).toEqual([
      [
        {
          text: "🔐 Confirm with PIN",
          web_app: { url: `https://pay.example.com/app/?x=1&step_up=confirm.${payout.id}` },
        },
        expect.objectContaining({ text: "✖️ Cancel", callback_data: `x:${payout.id}` }),
      ],
    ]);
    expect(stripHtml(view.text)).toContain("From 100,000 FCFA, confirming takes your PIN");
  });

  it("takes the Confirm off elsewhere and says to open it in private", () => {
    const view = withPinConfirm(t, prompt, payout.id, STEP_UP, false);
    expect(view.keyboard?.inline_keyboard.flat().map((button) => button.text)).toEqual([
      "✖️ Cancel",
    ]);
    expect(stripHtml(view.text)).toContain("open it from your private chat with me");
  });

  it("leaves a card under the threshold, or a collection's, as it is", () => {
    const card = {
      text: "card",
      keyboard: { inline_keyboard: [[{ text: "A", callback_data: `a:${payout.id}` }]] },
    };
    expect(withPinApprove(t, card, { ...payout, amount: 99_999 }, STEP_UP)).toBe(card);
    expect(withPinApprove(t, card, { ...payout, kind: "collection" }, STEP_UP)).toBe(card);
    expect(withPinApprove(t, card, payout, undefined)).toBe(card);
    const big = withPinApprove(t, card, payout, STEP_UP);
    expect(big.keyboard?.inline_keyboard[0]?.[0]).toEqual({
      text: "🔐 Approve with PIN",
      web_app: { url: stepUpUrl(STEP_UP.webAppUrl, "approve", payout.id) },
    });
  });
});
