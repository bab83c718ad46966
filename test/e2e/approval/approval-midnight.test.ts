/**
 * Approval across midnight, end to end: a payout asked for on one day and approved on the
 * next counts against the day it is approved on, checked against that day's caps in the
 * approval's own atomic step, and the hold on the day it was asked for is given back in the
 * same step.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { dayOf } from "../../../src/time.js";
import { isPromptReading, pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

/** The app's clock runs with real time, moved on by a test by whole days. */
const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
const DAY_MS = 86_400_000;
const DISBURSE = { method: "POST", path: "/disburse" } as const;
const ZONE = "Africa/Douala";

describe("approval across midnight", () => {
  const h = harnessPerTest({
    now: () => clock.now(),
    env: {
      APPROVAL_THRESHOLD_XAF: "100000",
      APPROVAL_TTL_HOURS: "48",
      MERCHANT_DAILY_LIMIT_XAF: "300000",
      TIME_ZONE: ZONE,
    },
  });

  /** The payer asks for 250,000 today; resolves with the approver's card. */
  async function askToday(): Promise<SentMessage> {
    clock.offsetMs = 0;
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
    return card;
  }

  it("counts an approval made the next day against that day, and frees the day it was asked", async () => {
    const card = await askToday();
    const askedDay = dayOf(clock.now(), ZONE);
    expect((await h.app.stores.spending.usage(askedDay)).merchantXaf).toBe(250_000);

    clock.offsetMs += DAY_MS;
    const approvedDay = dayOf(clock.now(), ZONE);
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
      10_000,
    );
    await approver.pressButton(card, "✅ Approve");
    await paid;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);

    expect((await h.app.stores.spending.usage(approvedDay)).merchantXaf).toBe(250_000);
    expect((await h.app.stores.spending.usage(askedDay)).merchantXaf).toBe(0);
    const limits = plainText(await sendAndWait(h.emulator, approver, "/limits"));
    expect(limits).toContain("Everyone today: 250,000 FCFA used, 50,000 FCFA left");
  });

  it("refuses an approval that would pass the cap of the day it is made, and pays nothing", async () => {
    const card = await askToday();
    const askedDay = dayOf(clock.now(), ZONE);

    clock.offsetMs += DAY_MS;
    const approvedDay = dayOf(clock.now(), ZONE);
    // The next day, 90,000 is paid first: 250,000 more would make 340,000 of 300,000.
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, admin, "/pay 690000001 90000");
    await pressAndWait(h.emulator, admin, prompt, "Pending");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);

    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const pressed = await approver.pressButton(card, "✅ Approve");
    const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toBe(
      "⛔ Not approved: today it would pass the daily limit of 300,000 FCFA for everyone together (210,000 FCFA left today). Nothing was paid; it still waits for a decision.",
    );

    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    expect(items[0]?.state).toBe("awaiting_approval");
    expect((await h.app.stores.spending.usage(approvedDay)).merchantXaf).toBe(90_000);
    expect((await h.app.stores.spending.usage(askedDay)).merchantXaf).toBe(250_000);
  });
});
