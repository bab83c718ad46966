/**
 * Telegram's limits end to end, with the emulator's flood control on (a call past a limit is
 * refused with 429; a chat written to before its `retry_after` has passed is recorded as
 * early): cards to many approvers go out under 30 a second, and a 429 on one notice holds
 * the next notice to the same person until its `retry_after` has passed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  PAYER_ID,
  startHarness,
  VIEWER_ID,
} from "../../support/harness.js";

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Forty approvers beside the harness's four staff members. */
const MANY_APPROVERS = Array.from({ length: 40 }, (_, i) => 7000 + i);

function isCardIn(chatId: number) {
  return (m: SentMessage) => isPromptIn(chatId)(m) && plainText(m).includes("Approval needed");
}

function isPaidNotice(message: SentMessage): boolean {
  return message.chatId === PAYER_ID && plainText(message).startsWith("✅ Paid:");
}

describe("Telegram's limits, end to end", () => {
  it("sends a card to each of 42 approvers under 30 messages a second, none refused", async () => {
    const staff = [
      `${ADMIN_ID}:admin`,
      `${PAYER_ID}:payer`,
      `${VIEWER_ID}:viewer`,
      `${APPROVER_ID}:approver`,
      ...MANY_APPROVERS.map((id) => `${id}:approver`),
    ].join(",");
    h = await startHarness({ env: { APPROVAL_THRESHOLD_XAF: "100000", STAFF: staff } });
    const harness = h;
    harness.emulator.floodControl({ perSecond: 30 });
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approvers = [APPROVER_ID, ADMIN_ID, ...MANY_APPROVERS];
    for (const id of approvers) harness.emulator.user({ id, firstName: `A${id}` });

    const prompt = await showPrompt(harness.emulator, payer, "/pay 670000001 250000 rent");
    const cards = Promise.all(
      approvers.map((id) => harness.emulator.waitForMessage(isCardIn(id), 20_000)),
    );
    await payer.pressButton(prompt, 0);

    expect(await cards).toHaveLength(42);
    expect(harness.emulator.floodRefusals).toEqual([]);
    expect(harness.emulator.busiestWindow(1000)).toBeLessThanOrEqual(30);
    for (const id of approvers) {
      expect(harness.emulator.messages(id).filter(isCardIn(id))).toHaveLength(1);
    }
  });

  it("holds the next notice to a person until the retry_after of a 429 has passed", async () => {
    // Payments settle 1.5 s after they are made: both are confirmed before either settles.
    h = await startHarness({ sandbox: { settleDelayMs: 1500 } });
    const harness = h;
    harness.emulator.floodControl({});
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    for (const command of ["/pay 237670000001 5000", "/pay 237670000001 7000"]) {
      const prompt = await showPrompt(harness.emulator, payer, command);
      const pending = harness.emulator.waitForMessage(
        (m) => m.messageId === prompt.messageId && plainText(m).includes("Pending"),
      );
      await payer.pressButton(prompt, 0);
      await pending;
    }
    // The first "Paid" notice is refused: the payer's chat is held for 3 s.
    harness.emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 3",
      retry_after: 3,
    });

    await expect
      .poll(() => harness.emulator.messages(PAYER_ID).filter(isPaidNotice).length, {
        timeout: 20_000,
      })
      .toBe(2);
    // Flood control lists any call to the payer's chat within those 3 s as early.
    expect(harness.emulator.floodRefusals).toEqual([]);
    await expect.poll(() => harness.app.stores.outbox.size()).toBe(0);
    const texts = harness.emulator.messages(PAYER_ID).filter(isPaidNotice).map(plainText);
    expect(texts.some((text) => text.includes("5,000"))).toBe(true);
    expect(texts.some((text) => text.includes("7,000"))).toBe(true);
  });
});
