/**
 * Nothing slow stands between the claim and the request. A Telegram that takes its time to
 * answer the Confirm press must neither delay the payment nor let the "stranded in
 * submitting" rule mark it unknown while it is still to be sent; and a payout that did
 * leave `submitting` before its request went out is never sent.
 */
import { describe, expect, it } from "vitest";
import { fakeClock } from "../../support/clock.js";
import { isPromptReading, promptRecord, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

const clock = fakeClock(Date.now());
const TELEGRAM_DELAY_MS = 2_500;

describe("Confirm while Telegram is slow", () => {
  const h = harnessPerTest({ now: () => clock.now() });

  it("sends the payment at once, so the stranded rule run during the delay finds it pending", async () => {
    clock.nowMs = Date.now();
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    h.emulator.delayNext("answerCallbackQuery", TELEGRAM_DELAY_MS);
    h.emulator.delayNext("editMessageText", TELEGRAM_DELAY_MS);
    const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 15_000);

    await payer.pressButton(prompt, 0);
    // While Telegram still holds the answer, another replica's stranded rule looks, with a
    // clock far past the limit: a payout still unsent in `submitting` would become unknown.
    await expect
      .poll(() => h.emulator.calls.some((c) => c.method === "answerCallbackQuery"))
      .toBe(true);
    await expect
      .poll(() => h.sandbox.countRequests({ method: "POST", path: "/disburse" }), {
        timeout: 1_000,
      })
      .toBe(1);
    clock.nowMs += 60 * 60_000;
    await h.app.tracker.resume();

    await pending;
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    expect(items[0]?.state).toBe("pending");
    expect(items[0]?.paymentId).toBeDefined();
    expect(items[0]?.sentAtMs).toBeGreaterThan(0);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("never sends a payout that was marked unknown between its claim and its request", async () => {
    clock.nowMs = Date.now();
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    const payoutId = (await promptRecord(h, prompt)).id;

    const claim = await h.app.payouts.submission.claim(payoutId, {
      userId: PAYER_ID,
      role: "payer",
    });
    expect(claim.outcome).toBe("claimed");
    if (claim.outcome !== "claimed") return;
    // The stranded rule of another replica got there first.
    const lost = await h.app.stores.payouts.transition(payoutId, "lost", {
      errorMessage: "the bot stopped while the request was being sent",
    });
    expect(lost.ok).toBe(true);

    const result = await h.app.payouts.submission.submit(claim);
    expect(result.outcome).toBe("not_sent");
    expect(result.payout.state).toBe("failed");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });

  it("refuses Confirm from a payer demoted to viewer since the prompt was shown, and sends nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    await h.app.stores.staff.set(PAYER_ID, "viewer");

    const pressed = await payer.pressButton(prompt, 0);
    const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);

    expect(answer.text).toContain("can no longer make payments");
    expect(answer.showAlert).toBe(true);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    expect(items[0]?.state).toBe("awaiting_confirmation");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });
});

describe("Confirm when the payment settles before its own edit lands", () => {
  const h = harnessPerTest();

  it("leaves the prompt on the final status, not on a late 'Pending'", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    // Confirm's edit of the prompt is slow to land; meanwhile the payment settles (150 ms),
    // the tracker finds it (200 ms) and the notifier edits the prompt to its final status.
    h.emulator.delayNext("editMessageText", 1_500);
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && m.messageId !== prompt.messageId && m.text.includes("Paid"),
      // A bound, not a timing claim: on a loaded machine the notice took over 10 s once.
      30_000,
    );
    await payer.pressButton(prompt, 0);
    await paid;

    await expect
      .poll(() => h.emulator.plainText(h.emulator.message(PAYER_ID, prompt.messageId) ?? prompt), {
        timeout: 10_000,
      })
      .toContain("Completed");
    // Well after Confirm's late edit: the prompt still reads the final status.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const final = h.emulator.plainText(h.emulator.message(PAYER_ID, prompt.messageId) ?? prompt);
    expect(final).toContain("Completed");
    expect(final).not.toContain("Pending");
  });
});
