/**
 * A schedule's approval card goes to every approver and admin but its owner; once one of
 * them decides (or nobody does in time), every other card shows the decision and loses its
 * buttons, as a payout's cards do. The apps' clock is real time shifted forward.
 */
import { describe, expect, it } from "vitest";
import {
  plainText,
  type SentMessage,
  type TelegramEmulator,
} from "../../../src/dev/telegram-emulator/index.js";
import { atTime } from "../../../src/payouts/schedule/when.js";
import { dayOf } from "../../../src/time.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({
  env: {
    TIME_ZONE: ZONE,
    SCHEDULE_REMINDER_HOURS: "0",
    APPROVAL_THRESHOLD_XAF: "100000",
    APPROVAL_TTL_HOURS: "1",
  },
  now,
});

/** `card` edited to show `text`, with no buttons left. */
function decided(card: SentMessage, text: string) {
  return (message: SentMessage) =>
    message.chatId === card.chatId &&
    message.messageId === card.messageId &&
    plainText(message).includes(text) &&
    (message.replyMarkup?.length ?? 0) === 0;
}

/** A schedule over the threshold, confirmed by its owner: the approver's and the admin's cards. */
async function cards(emulator: TelegramEmulator) {
  const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const approver = emulator.user({ id: APPROVER_ID, firstName: "Ada", languageCode: "en" });
  emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
  const day = dayOf(Date.now() + 2 * 86_400_000, ZONE);
  const [year, month, date] = day.split("-");
  expect(atTime(day, "09:00", ZONE)).toBeGreaterThan(Date.now());
  const prompt = await showPrompt(
    emulator,
    payer,
    `/schedule ${date}/${month}/${year} 670000001 150000`,
  );
  const toApprover = emulator.waitForMessage(
    isIn(APPROVER_ID, "Scheduled payout to approve"),
    10_000,
  );
  const toAdmin = emulator.waitForMessage(isIn(ADMIN_ID, "Scheduled payout to approve"), 10_000);
  await pressAndWait(emulator, payer, prompt, "Waiting for approval");
  return { approver, approverCard: await toApprover, adminCard: await toAdmin };
}

describe("a schedule's approval cards", () => {
  it("all show the approval once one approver approved", async () => {
    const { approver, approverCard, adminCard } = await cards(h.emulator);
    const edited = h.emulator.waitForMessage(decided(adminCard, "Active"), 10_000);
    await pressAndWait(h.emulator, approver, approverCard, "Active");
    expect(plainText(await edited)).toContain("150");
  });

  it("all show the rejection once one approver rejected", async () => {
    const { approver, approverCard, adminCard } = await cards(h.emulator);
    const edited = h.emulator.waitForMessage(decided(adminCard, "Rejected by an approver"), 10_000);
    await pressAndWait(h.emulator, approver, approverCard, "Rejected", { button: 1 });
    await edited;
  });

  it("all show the expiry once nobody approved in time", async () => {
    const { approverCard, adminCard } = await cards(h.emulator);
    const edits = [approverCard, adminCard].map((card) =>
      h.emulator.waitForMessage(decided(card, "Expired"), 20_000),
    );
    clock.setTo(Date.now() + 2 * 3_600_000);
    await Promise.all(edits);
  });
});
