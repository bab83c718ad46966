/**
 * A payer removed from staff (or demoted) while they own schedules (found by review: their
 * schedule waiting for approval could still be approved, and an active one would pay again
 * once they were added back without anyone deciding): in the same step as their other open
 * work, their schedules waiting for Confirm or approval are cancelled (the approver's card
 * says so, an Approve pressed later moves nothing), their active ones are paused, and the
 * admins' summary lists them, in English and in French. Added back, nothing runs.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyWith, pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const h = harnessPerTest({
  env: { APPROVAL_THRESHOLD_XAF: "100000", TIME_ZONE: ZONE, SCHEDULE_REMINDER_HOURS: "0" },
  now: clock.now,
});

const DISBURSE = { method: "POST", path: "/disburse" } as const;

/** The payer's weekly 5,000 (active), monthly 150,000 (waiting for approval) and a prompt. */
async function threeSchedules(language: "en" | "fr") {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
  const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: language });
  for (const user of [payer, approver, admin]) await sendAndWait(h.emulator, user, "/help");
  const weekly = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 5000");
  await pressAndWait(h.emulator, payer, weekly, "Active");
  const card = h.emulator.waitForMessage(isIn(APPROVER_ID, "150,000"));
  const monthly = await showPrompt(h.emulator, payer, "/schedule monthly 28 670000002 150000");
  await pressAndWait(h.emulator, payer, monthly, "Waiting for approval");
  await showPrompt(h.emulator, payer, "/schedule monthly 15 670000003 7000");
  const byAmount = new Map(
    (await h.app.stores.schedules.list(10)).map((schedule) => [schedule.amount, schedule]),
  );
  expect([...byAmount.values()].map((schedule) => schedule.state).sort()).toEqual([
    "active",
    "awaiting_approval",
    "awaiting_confirmation",
  ]);
  const id = (amount: number) => byAmount.get(amount)?.id ?? "";
  return { payer, approver, admin, card: await card, ids: [id(5000), id(150000), id(7000)] };
}

describe("a schedule owner who loses their standing", () => {
  it("has their schedules cancelled or paused in the same step, the approver's card and the admins told", async () => {
    const { approver, admin, card, ids } = await threeSchedules("en");
    const [weekly = "", monthly = "", prompt = ""] = ids;
    const cardEdited = h.emulator.waitForMessage(
      (m) =>
        m.chatId === APPROVER_ID &&
        m.messageId === card.messageId &&
        (m.replyMarkup?.length ?? 0) === 0,
    );
    const summary = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Staff change"),
    );
    const payerTold = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("can no longer pay"),
    );
    await sendAndWait(
      h.emulator,
      admin,
      `/staff remove ${PAYER_ID}`,
      isNewReplyWith(ADMIN_ID, "is no longer staff"),
    );
    const toPayer = plainText(await payerTold);
    expect(toPayer).toContain("Schedules stopped (3)");
    expect(toPayer).not.toContain("Nothing of yours was open");

    const schedules = h.app.stores.schedules;
    expect((await schedules.get(weekly))?.state).toBe("paused");
    expect((await schedules.get(weekly))?.pausedBecause).toBe("owner_not_allowed");
    expect((await schedules.get(monthly))?.state).toBe("cancelled");
    expect((await schedules.get(prompt))?.state).toBe("cancelled");
    expect(plainText(await cardEdited)).toContain("Cancelled");
    const told = plainText(await summary);
    expect(told).toContain("Schedules stopped (3)");
    expect(told).toContain("5,000");
    expect(told).toContain("paused");
    expect(told).toContain("150,000");
    expect(told).toContain("cancelled");

    // The approver's old card, pressed anyway: nothing moves.
    const press = await approver.pressCallbackData(card.messageId, `sa:${monthly}`);
    await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect((await schedules.get(monthly))?.state).toBe("cancelled");

    // Added back: the paused schedule stays paused, and its run time passes with nothing sent.
    await sendAndWait(
      h.emulator,
      admin,
      `/staff add ${PAYER_ID} payer`,
      isNewReplyWith(ADMIN_ID, "is now"),
    );
    const at = (await schedules.get(weekly))?.nextRunAtMs ?? 0;
    clock.setTo(at + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await schedules.get(weekly))?.state).toBe("paused");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("is summed up for a French admin in French", async () => {
    const { admin } = await threeSchedules("fr");
    const summary = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Changement"),
    );
    await sendAndWait(
      h.emulator,
      admin,
      `/staff remove ${PAYER_ID}`,
      (m) => m.chatId === ADMIN_ID && plainText(m).includes(String(PAYER_ID)),
    );
    const told = plainText(await summary);
    expect(told).toContain("Programmations arrêtées (3)");
    expect(told).toContain("mise en pause");
    expect(told).toContain("annulée");
  });
});
