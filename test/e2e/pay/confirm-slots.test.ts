/**
 * The Payment API's rate limit is shared by every Confirm: a slot is taken only by a press
 * that claimed a payout. Presses that claim nothing (forged ids, stale buttons, someone who
 * may not confirm) leave the limit alone, so they cannot starve a real Confirm.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { isPromptReading, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  harnessPerTest,
  PAYER_ID,
  VIEWER_ID,
} from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
/** More presses than the sandbox's limit of 100 requests a minute. */
const PRESSES = 102;

describe("Confirm and the rate limit", () => {
  const h = harnessPerTest();

  it("takes no slot for presses that claim nothing, so the next real Confirm is sent", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 5000");
    const others = [ADMIN_ID, APPROVER_ID, VIEWER_ID].map((id) =>
      h.emulator.user({ id, firstName: `Staff ${id}`, languageCode: "en" }),
    );
    const slots = keys(h.prefix).rateLimit("payment-api");
    const redis = testRedis();
    try {
      const before = await redis.zcard(slots);
      for (let press = 0; press < PRESSES; press += 1) {
        const presser = others[press % others.length];
        if (!presser) throw new Error("no presser");
        // A forged id, and the real prompt's Confirm pressed by someone who may not confirm it.
        const data = press % 2 === 0 ? `c:forged${String(press).padStart(10, "0")}` : "";
        const pressed =
          data === ""
            ? await presser.pressCallbackData(prompt.messageId, confirmDataOf(prompt))
            : await presser.pressCallbackData(prompt.messageId, data);
        await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
      }
      expect(await redis.zcard(slots)).toBe(before);
    } finally {
      redis.disconnect();
    }
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 10_000);
    await payer.pressButton(prompt, 0);
    expect(plainText(await pending)).toContain("5,000 FCFA");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    // Its slot was taken by the claim itself, in the same step (named after the payout).
    const payoutId = confirmDataOf(prompt).slice("c:".length);
    const check = testRedis();
    try {
      const members = await check.zrange(slots, 0, -1);
      expect(members.filter((member) => member.startsWith(`${payoutId}:`))).toHaveLength(1);
    } finally {
      check.disconnect();
    }
  });
});

function confirmDataOf(prompt: SentMessage): string {
  const data = prompt.replyMarkup?.flat()[0]?.callback_data;
  if (data === undefined) throw new Error("the prompt has no Confirm");
  return data;
}
