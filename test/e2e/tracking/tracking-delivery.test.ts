/**
 * Telegram refusing the payer's notification: a 429 is retried later and the notice
 * arrives once; a 429 on the prompt's edit is retried too (the prompt ends up final, the
 * push still goes once); a user who blocked the bot is given up on, not retried forever.
 */
import { afterEach, describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { confirmPayout, isPromptReading } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

function isPaidNotice(message: SentMessage, prompt: SentMessage): boolean {
  return (
    message.chatId === prompt.chatId &&
    message.messageId !== prompt.messageId &&
    plainText(message).startsWith("✅ Paid:")
  );
}

/** sendMessage calls for the payer's "Paid" notice, refused ones included. */
function noticeSends(harness: Harness): number {
  return harness.emulator.calls.filter(
    (call) =>
      call.method === "sendMessage" &&
      Number(call.params.chat_id) === PAYER_ID &&
      String(call.params.text).includes("Paid</b>:"),
  ).length;
}

/** editMessageText calls making the payer's prompt read "Completed", refused ones included. */
function promptFinalEdits(harness: Harness, prompt: SentMessage): number {
  return harness.emulator.calls.filter(
    (call) =>
      call.method === "editMessageText" &&
      Number(call.params.chat_id) === PAYER_ID &&
      Number(call.params.message_id) === prompt.messageId &&
      String(call.params.text).includes("Completed"),
  ).length;
}

describe("delivering the final status", () => {
  it("retries a notice Telegram refused with 429 and delivers it once", async () => {
    h = await startHarness();
    const harness = h;
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000");
    // The next sendMessage is the notice (the prompt was sent already).
    harness.emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      retry_after: 1,
    });

    await harness.emulator.waitForMessage((m) => isPaidNotice(m, prompt), 10_000);
    expect(noticeSends(harness)).toBe(2);
    await expect.poll(() => harness.app.stores.outbox.size()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(harness.emulator.messages(PAYER_ID).filter((m) => isPaidNotice(m, prompt))).toHaveLength(
      1,
    );
    expect(noticeSends(harness)).toBe(2);
    expect((await harness.app.stores.payouts.get(payout.id))?.notifiedAtMs).toBeDefined();
  });

  it("retries a notice whose prompt edit Telegram refused with 429: the prompt reads Completed, one Paid push", async () => {
    // Settled 1.5 s after the request: the refusal below is queued before the notice goes.
    h = await startHarness({ sandbox: { settleDelayMs: 1500 } });
    const harness = h;
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000");
    // The next edit is the prompt's Pending → Completed (Pending is shown already).
    harness.emulator.failNext("editMessageText", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      retry_after: 1,
    });

    await harness.emulator.waitForMessage(isPromptReading(prompt, "Completed"), 15_000);
    await harness.emulator.waitForMessage((m) => isPaidNotice(m, prompt), 10_000);
    await expect.poll(() => harness.app.stores.outbox.size()).toBe(0);
    expect(promptFinalEdits(harness, prompt)).toBeGreaterThanOrEqual(2);
    // Past the first retry delay (2 s): a push sent twice would be here by now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(harness.emulator.messages(PAYER_ID).filter((m) => isPaidNotice(m, prompt))).toHaveLength(
      1,
    );
    expect(noticeSends(harness)).toBe(1);
    expect((await harness.app.stores.payouts.get(payout.id))?.notifiedAtMs).toBeDefined();
  });

  it("gives up on a payer who blocked the bot instead of retrying forever", async () => {
    h = await startHarness();
    const harness = h;
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000");
    payer.blockBot();

    await expect.poll(() => noticeSends(harness), { timeout: 5000 }).toBe(1);
    await expect.poll(() => harness.app.stores.outbox.size()).toBe(0);
    const settled = await harness.app.stores.payouts.get(payout.id);
    expect(settled?.state).toBe("success");
    expect(settled?.notifiedAtMs).toBeUndefined();
    // Well past the first retry delay (2 s): nothing was tried again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(noticeSends(harness)).toBe(1);
    expect(await harness.app.stores.outbox.size()).toBe(0);
  });
});
