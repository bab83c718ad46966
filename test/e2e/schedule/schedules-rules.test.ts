/**
 * Approval rules for a schedule (APPROVAL_RULES): it follows the band of one run's amount.
 * In a band of two, the first Approve is a signature (it keeps waiting), the same person
 * again is refused, and the second person's Approve makes it active.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { atTime } from "../../../src/payouts/schedule/when.js";
import { dayOf } from "../../../src/time.js";
import { pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();

const h = harnessPerTest({
  env: {
    TIME_ZONE: ZONE,
    SCHEDULE_REMINDER_HOURS: "0",
    APPROVAL_RULES: "100000:1; 200000:2",
  },
  now: clock.now,
});

describe("a schedule under approval rules", () => {
  it("needs two signatures for a run in the band of two", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    for (const user of [approver, admin]) await sendAndWait(h.emulator, user, "/help");
    const day = dayOf(Date.now() + 2 * 86_400_000, ZONE);
    const [year, month, date] = day.split("-");
    expect(atTime(day, "09:00", ZONE)).toBeGreaterThan(Date.now());
    const prompt = await showPrompt(
      h.emulator,
      payer,
      `/schedule ${date}/${month}/${year} 670000001 250000`,
    );
    const toApprover = h.emulator.waitForMessage(isIn(APPROVER_ID, "Scheduled payout to approve"));
    const toAdmin = h.emulator.waitForMessage(isIn(ADMIN_ID, "Scheduled payout to approve"));
    await pressAndWait(h.emulator, payer, prompt, "Waiting for approval");
    const [approverCard, adminCard] = [await toApprover, await toAdmin];
    const [schedule] = await h.app.stores.schedules.list(1);
    expect(schedule?.approvalRule?.signatures).toBe(2);

    expect(plainText(adminCard)).toContain("2 signatures: none given yet.");
    const adminSees = h.emulator.waitForMessage(
      (m) =>
        m.chatId === ADMIN_ID &&
        m.messageId === adminCard.messageId &&
        plainText(m).includes("2 signatures: 1 given, by Ama on"),
    );
    const first = await approver.pressButton(approverCard, 0);
    expect((await h.emulator.waitForCallbackAnswer(first.callbackQueryId)).text).toBe(
      "🖊 Signed: 1 of 2 signatures. The schedule starts once the last one is given.",
    );
    await adminSees;
    const again = await approver.pressButton(approverCard, 0);
    expect((await h.emulator.waitForCallbackAnswer(again.callbackQueryId)).text).toBe(
      "You already signed this request: another approver or admin must sign it. Nothing changed.",
    );
    const waiting = await h.app.stores.schedules.get(schedule?.id ?? "");
    expect(waiting?.state).toBe("awaiting_approval");
    expect(waiting?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID]);

    await pressAndWait(h.emulator, admin, adminCard, "Active");
    const active = await h.app.stores.schedules.get(schedule?.id ?? "");
    expect(active?.state).toBe("active");
    expect(active?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID, ADMIN_ID]);
    expect(plainText(approverCard)).toContain("250");
  });

  it("never counts a signature of a Resume rejected since for the next Resume: an Approve read before the Reject decides nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 250000");
    await pressAndWait(h.emulator, payer, prompt, "Waiting for approval");
    const [made] = await h.app.stores.schedules.list(1);
    const id = made?.id ?? "";
    const steps = h.app.payouts.schedules;
    const owner = { userId: PAYER_ID, role: "payer" as const };
    const ama = { userId: APPROVER_ID, role: "approver" as const };
    const awa = { userId: ADMIN_ID, role: "admin" as const };
    await steps.decide(id, ama, true);
    expect((await steps.decide(id, awa, true)).outcome).toBe("done");
    expect((await steps.change(id, owner, "pause")).outcome).toBe("done");
    expect((await steps.change(id, owner, "resume")).outcome).toBe("approval_requested");
    expect((await steps.decide(id, ama, true)).outcome).toBe("signed");

    // Awa presses Approve on that Resume; before her press is counted, Ama rejects the Resume
    // and the owner asks to resume again (a new request, with no signature yet): the moment
    // between her press's read and its write, made to happen here.
    const staff = h.app.stores.staff;
    const list = staff.list.bind(staff);
    let between = false;
    staff.list = async () => {
      if (!between) {
        between = true;
        expect((await steps.decide(id, ama, false)).outcome).toBe("done");
        expect((await steps.change(id, owner, "resume")).outcome).toBe("approval_requested");
      }
      return list();
    };
    const late = await steps.decide(id, awa, true).finally(() => {
      staff.list = list;
    });
    expect(between).toBe(true);
    const now = await h.app.stores.schedules.get(id);
    expect(now?.state).toBe("awaiting_approval");
    expect(now?.signatures ?? []).not.toContainEqual(
      expect.objectContaining({ userId: APPROVER_ID }),
    );
    expect(late.outcome).toBe("already");
  });

  it("no longer counts a signer removed while the last signature is being counted", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 250000");
    await pressAndWait(h.emulator, payer, prompt, "Waiting for approval");
    const [made] = await h.app.stores.schedules.list(1);
    const id = made?.id ?? "";
    const steps = h.app.payouts.schedules;
    const ama = { userId: APPROVER_ID, role: "approver" as const };
    const awa = { userId: ADMIN_ID, role: "admin" as const };
    expect((await steps.decide(id, ama, true)).outcome).toBe("signed");

    // Awa's Approve reads who stands, then Ama is removed before the move: the moment
    // between the two, made to happen here.
    const staff = h.app.stores.staff;
    const list = staff.list.bind(staff);
    let reads = 0;
    staff.list = async () => {
      const members = await list();
      reads += 1;
      if (reads === 2) await staff.remove(APPROVER_ID);
      return members;
    };
    const late = await steps.decide(id, awa, true).finally(() => {
      staff.list = list;
    });
    expect(reads).toBe(2);
    // Nothing decided: the card is drawn again as the schedule stands (still waiting).
    expect(late.outcome).toBe("already");
    expect((await h.app.stores.schedules.get(id))?.state).toBe("awaiting_approval");
  });
});
