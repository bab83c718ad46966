/**
 * A /pay prompt goes out before its record is stored: the record is written after the
 * send, with the prompt's message id, in one script (payouts/prepare.ts `publish`). So a
 * prompt that could not be sent leaves no record, and a press that finds no record yet is
 * told to press again, its buttons kept.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { pressAndWait, promptRecord, showPrompt } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

describe("a /pay prompt sent before its record is stored", () => {
  let h: Harness;
  const redis = testRedis();

  beforeEach(async () => {
    h = await startHarness();
  });

  afterEach(async () => {
    await h.close();
  });

  function payer() {
    return h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  }

  function disburseCount(): number {
    return h.sandbox.countRequests({ method: "POST", path: "/disburse" });
  }

  it("stores the prompt's record with its message id", async () => {
    const prompt = await showPrompt(h.emulator, payer(), "/pay 670000001 5000");
    const payout = await promptRecord(h, prompt);
    expect(payout.state).toBe("awaiting_confirmation");
    expect(payout.messageId).toBe(prompt.messageId);
  });

  it("stores nothing when the prompt could not be sent", async () => {
    h.emulator.failNext("sendMessage", { error_code: 400, description: "Bad Request: nope" });
    await payer().sendText("/pay 670000001 5000");
    // Updates of one chat are handled in turn: once the next prompt is up, the first /pay
    // is over.
    const next = await showPrompt(h.emulator, payer(), "/pay 670000001 7000");
    const stored = await promptRecord(h, next);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
    expect(items.map((item) => item.id)).toEqual([stored.id]);
    expect(stored.amount).toBe(7000);
  });

  it("tells a press that finds no record yet to press again, keeps the buttons, and pays on the next press", async () => {
    const prompt = await showPrompt(h.emulator, payer(), "/pay 670000001 5000");
    const payout = await promptRecord(h, prompt);
    // As if the press reached another bot process before this one's write.
    const record = keys(h.prefix).payout(payout.id);
    await redis.rename(record, `${record}:aside`);

    const early = await payer().pressButton(prompt, 0);
    const answer = await h.emulator.waitForCallbackAnswer(early.callbackQueryId);
    expect(answer.text).toBe("This prompt is still being saved: press again in a moment.");
    expect(h.emulator.message(PAYER_ID, prompt.messageId)?.replyMarkup?.flat()).toHaveLength(2);
    expect(disburseCount()).toBe(0);

    await redis.rename(`${record}:aside`, record);
    const pending = await pressAndWait(h.emulator, payer(), prompt, "Pending");
    expect(plainText(pending)).toContain("Pending");
    expect(disburseCount()).toBe(1);
  });
});
