/**
 * The guards of /pay on the schedule's own path (found by review): the four-eyes rule that an
 * approver made after the request cannot decide on it, and the PIN threshold: a schedule at
 * or over it is confirmed only with the PIN, in the Mini App (test/e2e/webapp/
 * schedule-step-up.test.ts follows it there).
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn } from "../../support/schedules.js";

const SECOND_ACCOUNT = 2001;

describe("a schedule's approval", () => {
  const h = harnessPerTest({
    env: { APPROVAL_THRESHOLD_XAF: "100000", SCHEDULE_REMINDER_HOURS: "0" },
  });

  it("refuses an approver whose role was granted after the schedule was made", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, admin, "/schedule monthly 28 670000001 150000");
    await pressAndWait(h.emulator, admin, prompt, "Waiting for approval");
    const [schedule] = await h.app.stores.schedules.list(10);
    expect(schedule?.state).toBe("awaiting_approval");
    // The admin makes a second account of theirs an approver, and approves with it.
    const added = await sendAndWait(h.emulator, admin, `/staff add ${SECOND_ACCOUNT} approver`);
    expect(plainText(added)).toContain(`${SECOND_ACCOUNT} is now`);
    const second = h.emulator.user({ id: SECOND_ACCOUNT, firstName: "Alt", languageCode: "en" });
    const press = await second.pressCallbackData(added.messageId, `sa:${schedule?.id}`);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toContain("You got your approving role after this was asked for");
    expect((await h.app.stores.schedules.get(schedule?.id ?? ""))?.state).toBe("awaiting_approval");
  });
});

describe("a schedule at or over the PIN threshold", () => {
  const h = harnessPerTest({
    env: {
      STEP_UP_THRESHOLD_XAF: "200000",
      WEBAPP_URL: "https://pay.example.test/app/",
      SCHEDULE_REMINDER_HOURS: "0",
    },
  });

  it("is taken with its Confirm opening the Mini App (in French too); under it the chat's Confirm stays", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const big = await showPrompt(h.emulator, payer, "/schedule monthly 28 670000001 250000");
    const [pinButton, cancel] = (big.replyMarkup ?? []).flat();
    expect(pinButton?.text).toBe("🔐 Confirm with PIN");
    expect(pinButton?.web_app?.url).toMatch(/\?step_up=schedule-confirm\.[\w-]+$/);
    expect(cancel?.callback_data).toMatch(/^sx:/);
    expect((await h.app.stores.schedules.list(10)).map((s) => s.state)).toEqual([
      "awaiting_confirmation",
    ]);
    const prompt = await showPrompt(h.emulator, payer, "/schedule monthly 28 670000001 150000");
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const fr = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    const bigFr = await showPrompt(h.emulator, fr, "/schedule mensuel 28 670000001 250000");
    expect(isIn(ADMIN_ID, "la confirmation demande votre code PIN")(bigFr)).toBe(true);
    expect((bigFr.replyMarkup ?? []).flat()[0]?.text).toBe("🔐 Confirmer (PIN)");
  });
});
