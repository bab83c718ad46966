/**
 * Send anyway on a big held run is a new decision, held to /pay's rules: a 300,000 schedule
 * approved for one name whose number now belongs to someone else is not paid on its owner's
 * tap. At or over APPROVAL_THRESHOLD_XAF its payout, made out to the new name, waits for an
 * approver, whose card shows that name; at or over STEP_UP_THRESHOLD_XAF its owner confirms
 * it with the PIN in the Mini App, as a /pay prompt of that amount. The apps' clock is real
 * time shifted forward.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText, type TelegramEmulator } from "../../../src/dev/telegram-emulator/index.js";
import { runPayoutId } from "../../../src/model/schedule.js";
import { runsAfter } from "../../../src/payouts/schedule/when.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { APPROVER_ID, type Harness, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { dayAhead, isIn, type MovedClock, movedClock, ZONE } from "../../support/schedules.js";

const WEBAPP_URL = "https://pay.example.test/app/";

/**
 * A once-off schedule of `amount` for 670000001, approved, whose number is then registered
 * to Jean-Paul Mbarga instead of the name it was approved for; the held run's question.
 */
async function heldBigRun(
  h: Harness,
  clock: MovedClock,
  emulator: TelegramEmulator,
  language: "en" | "fr",
  amount: number,
) {
  const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: language });
  const approver = emulator.user({ id: APPROVER_ID, firstName: "Ada", languageCode: language });
  const run = dayAhead(1, "09:00");
  const card = emulator.waitForMessage(
    (message) => message.chatId === APPROVER_ID && (message.replyMarkup?.length ?? 0) > 0,
    10_000,
  );
  const prompt = await showPrompt(
    emulator,
    payer,
    `/schedule ${run.date} 09:00 670000001 ${amount}`,
  );
  await payer.pressButton(prompt, 0);
  const approvalCard = await card;
  const approved = emulator.waitForMessage(
    (message) =>
      message.chatId === APPROVER_ID &&
      message.messageId === approvalCard.messageId &&
      (message.replyMarkup?.length ?? 0) === 0,
    10_000,
  );
  await approver.pressButton(approvalCard, 0);
  await approved;
  const [schedule] = await h.app.stores.schedules.list(10);
  expect(schedule?.state).toBe("active");
  // As if the number had changed hands since: the schedule was approved for another name.
  await h.app.stores.schedules.move(schedule?.id ?? "", ["active"], "active", {
    recipientName: "Samuel Eto'o",
  });
  const held = emulator.waitForMessage(
    (message) =>
      message.chatId === PAYER_ID &&
      (message.replyMarkup ?? []).flat().some((button) => button.text.startsWith("⚠️")),
    20_000,
  );
  clock.moveTo(run.atMs + 1_000);
  const question = await held;
  expect(plainText(question)).toContain("Jean-Paul Mbarga");
  const key = schedule?.nextRunKey ?? "";
  return { payer, approver, question, payoutId: runPayoutId(schedule?.id ?? "", key) };
}

describe("Send anyway at or over the approval threshold", () => {
  const clock = movedClock();
  const h = harnessPerTest({
    env: { TIME_ZONE: ZONE, APPROVAL_THRESHOLD_XAF: "100000", SCHEDULE_REMINDER_HOURS: "0" },
    now: clock.now,
  });
  const disbursements = () => h.sandbox.countRequests({ method: "POST", path: "/disburse" });

  for (const [language, sendAnyway, approveText, told] of [
    ["en", "⚠️ Send anyway", "Approval needed", "waits for an approver"],
    ["fr", "⚠️ Envoyer quand même", "Approbation", "attend l’approbation"],
  ] as const) {
    it(`sends nothing on the owner's tap: an approver sees the new name and decides (${language})`, async () => {
      const { payer, approver, question, payoutId } = await heldBigRun(
        h,
        clock,
        h.emulator,
        language,
        300_000,
      );
      const card = h.emulator.waitForMessage(isIn(APPROVER_ID, approveText), 10_000);
      const pressed = await payer.pressButton(question, sendAnyway);
      const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
      expect(answer.text).toContain(told);
      const shown = await card;
      expect(plainText(shown)).toContain("Jean-Paul Mbarga");
      expect(plainText(shown)).toMatch(/300\D?000/);
      await sleep(500);
      expect(disbursements()).toBe(0);
      expect((await h.app.stores.payouts.get(payoutId))?.state).toBe("awaiting_approval");

      const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Jean-Paul Mbarga"), 20_000);
      await approver.pressButton(shown, 0);
      await paid;
      await sleep(500);
      expect(disbursements()).toBe(1);
      const payout = await h.app.stores.payouts.get(payoutId);
      expect(payout?.recipientName).toBe("Jean-Paul Mbarga");
      expect(payout?.approvedBy).toBe(APPROVER_ID);
    });
  }
});

describe("Send anyway at or over the PIN threshold", () => {
  const clock = movedClock();
  const h = harnessPerTest({
    env: {
      TIME_ZONE: ZONE,
      APPROVAL_THRESHOLD_XAF: "100000",
      STEP_UP_THRESHOLD_XAF: "250000",
      WEBAPP_URL,
      SCHEDULE_REMINDER_HOURS: "0",
    },
    now: clock.now,
  });
  const disbursements = () => h.sandbox.countRequests({ method: "POST", path: "/disburse" });

  it("asks its owner for the PIN in the Mini App, as a /pay prompt of that amount", async () => {
    // The schedule's approval takes the approver's PIN: made active in the store instead.
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const run = dayAhead(1, "09:00");
    const prompt = await showPrompt(
      h.emulator,
      payer,
      `/schedule ${run.date} 09:00 670000001 100000`,
    );
    await pressAndWait(h.emulator, payer, prompt, "Waiting for approval");
    const [schedule] = await h.app.stores.schedules.list(10);
    const id = schedule?.id ?? "";
    const [next] = runsAfter(
      schedule?.recurrence ?? { kind: "weekly", weekday: 1, time: "09:00" },
      ZONE,
      Date.now(),
      1,
    );
    expect(next?.atMs).toBe(run.atMs);
    const key = next?.key ?? "";
    await h.app.stores.schedules.move(id, ["awaiting_approval"], "active", {
      amount: 300_000,
      recipientName: "Samuel Eto'o",
      approvedBy: APPROVER_ID,
      nextRunAtMs: run.atMs,
      nextRunKey: key,
    });
    const held = h.emulator.waitForMessage(isIn(PAYER_ID, "held"), 20_000);
    clock.moveTo(run.atMs + 1_000);
    const question = await held;

    const pinPrompt = h.emulator.waitForMessage(
      (message) =>
        message.chatId === PAYER_ID &&
        (message.replyMarkup ?? []).flat().some((button) => button.web_app !== undefined),
      10_000,
    );
    const pressed = await payer.pressButton(question, "⚠️ Send anyway");
    const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain("needs your PIN");
    const shown = await pinPrompt;
    expect(plainText(shown)).toContain("Jean-Paul Mbarga");
    const button = (shown.replyMarkup ?? []).flat().find((b) => b.web_app !== undefined);
    const payoutId = runPayoutId(id, key);
    expect(button?.web_app?.url).toBe(`${WEBAPP_URL}?step_up=confirm.${payoutId}`);
    await sleep(500);
    expect(disbursements()).toBe(0);
    expect((await h.app.stores.payouts.get(payoutId))?.state).toBe("awaiting_confirmation");
  });
});
