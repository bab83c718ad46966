import { describe, expect, it } from "vitest";
import { confirmationPrompt } from "../../../../src/bot/views/pay.js";
import { SCHEDULE_CALLBACK } from "../../../../src/bot/views/schedule.js";
import {
  stepUpUrl,
  withPinApprove,
  withPinConfirm,
  withPinSchedule,
} from "../../../../src/bot/views/step-up.js";
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

describe("a schedule's step-up buttons", () => {
  const view = (id: string) => ({
    text: "prompt",
    keyboard: {
      inline_keyboard: [
        [
          { text: "C", callback_data: SCHEDULE_CALLBACK.confirm(id) },
          { text: "X", callback_data: SCHEDULE_CALLBACK.cancel(id) },
        ],
        [
          { text: "A", callback_data: SCHEDULE_CALLBACK.approve(id) },
          { text: "R", callback_data: SCHEDULE_CALLBACK.reject(id) },
        ],
      ],
    },
  });
  const schedule = { id: "sched12345", amount: 100_000 };

  it("turns only the Confirm (or only the Approve) into a Mini App button, at the threshold", () => {
    const confirm = withPinSchedule(
      t,
      view(schedule.id),
      schedule,
      "schedule-confirm",
      STEP_UP,
      true,
    );
    expect(confirm.keyboard?.inline_keyboard.flat().map((b) => b.text)).toEqual([
      "🔐 Confirm with PIN",
      "X",
      "A",
      "R",
    ]);
    expect(confirm.keyboard?.inline_keyboard[0]?.[0]).toEqual({
      text: "🔐 Confirm with PIN",
      web_app: { url: stepUpUrl(STEP_UP.webAppUrl, "schedule-confirm", schedule.id) },
    });
    const approve = withPinSchedule(
      t,
      view(schedule.id),
      schedule,
      "schedule-approve",
      STEP_UP,
      true,
    );
    expect(approve.keyboard?.inline_keyboard.flat().map((b) => b.text)).toEqual([
      "C",
      "X",
      "🔐 Approve with PIN",
      "R",
    ]);
    expect(stripHtml(approve.text)).toContain("From 100,000 FCFA, approving takes your PIN");
  });

  it("takes the Confirm off outside a private chat; under the threshold or with no PIN, changes nothing", () => {
    const group = withPinSchedule(
      t,
      view(schedule.id),
      schedule,
      "schedule-confirm",
      STEP_UP,
      false,
    );
    expect(group.keyboard?.inline_keyboard.flat().map((b) => b.text)).toEqual(["X", "A", "R"]);
    expect(stripHtml(group.text)).toContain("open it from your private chat with me");
    const small = view(schedule.id);
    expect(
      withPinSchedule(t, small, { ...schedule, amount: 99_999 }, "schedule-confirm", STEP_UP, true),
    ).toBe(small);
    expect(withPinSchedule(t, small, schedule, "schedule-confirm", undefined, true)).toBe(small);
  });
});
