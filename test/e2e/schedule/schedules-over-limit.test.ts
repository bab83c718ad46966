/**
 * A run held because it would go over the payer's daily limit: its payout was cancelled at
 * the claim, so Send anyway cannot send it and says so; the run is not recorded as sent.
 * The apps' clock is real time shifted forward.
 */
import { describe, expect, it } from "vitest";
import { payAndConfirm, pressAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn, movedClock } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({
  env: { TIME_ZONE: "Africa/Douala", PAYER_DAILY_LIMIT_XAF: "8000" },
  now,
});

describe("Send anyway on a run held over the limit", () => {
  it("refuses: its payout was cancelled, nothing is sent and the run is not recorded sent", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 5000");
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const [schedule] = await h.app.stores.schedules.list(1);
    if (!schedule?.nextRunAtMs || !schedule.nextRunKey) throw new Error("no schedule");
    // The run's day: 4,000 already paid, so its 5,000 would pass the 8,000 cap.
    clock.setTo(schedule.nextRunAtMs - 120_000);
    await payAndConfirm(h.emulator, payer, "/pay 670000001 4000");
    const disbursements = () => h.sandbox.countRequests({ method: "POST", path: "/disburse" });
    expect(disbursements()).toBe(1);

    const held = h.emulator.waitForMessage(isIn(PAYER_ID, "held"), 20_000);
    clock.setTo(schedule.nextRunAtMs + 1_000);
    const question = await held;
    const key = schedule.nextRunKey;
    expect((await h.app.stores.schedules.run(schedule.id, key))?.heldBecause).toBe("over_limit");

    const pressed = await payer.pressButton(question, "⚠️ Send anyway");
    const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain("cannot be sent");
    expect(disbursements()).toBe(1);
    const run = await h.app.stores.schedules.run(schedule.id, key);
    expect(run?.state).toBe("held");
  });
});
