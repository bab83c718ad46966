/**
 * An approval's claim takes its request's Payment API slot in its own move, as a Confirm's
 * does, and stamps the send time there: it is the last check, so the request leaves with
 * no slot of its own and no check of its own (one submission audited, one slot taken).
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

function isCardIn(chatId: number) {
  return (m: SentMessage) => isPromptIn(chatId)(m) && plainText(m).includes("Approval needed");
}

describe("an approval and the rate limit", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("takes the request's slot and stamps its send in the approval's own move", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    for (const user of [payer, approver]) await sendAndWait(h.emulator, user, "/help");
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000");
    const card = h.emulator.waitForMessage(isCardIn(APPROVER_ID));
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const payoutId = (prompt.replyMarkup?.flat()[0]?.callback_data ?? "").slice("c:".length);
    expect(payoutId).not.toBe("");

    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
      10_000,
    );
    await approver.pressButton(await card, "✅ Approve");
    await paid;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);

    const redis = testRedis();
    try {
      const members = await redis.zrange(keys(h.prefix).rateLimit("payment-api"), 0, -1);
      // Named after the payout: taken by the move (the gateway's own grants are not).
      expect(members.filter((member) => member.startsWith(`${payoutId}:`))).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
    const mine = (await h.app.stores.audit.recent(50)).filter((e) => e.payoutId === payoutId);
    expect(mine.filter((e) => e.action === "approve")).toHaveLength(1);
    // Stamped by the move; no second check stamped it again before the request left.
    expect(mine.filter((e) => e.action === "submit")).toHaveLength(1);
    const stored = await h.app.stores.payouts.get(payoutId);
    expect(stored?.state).toBe("success");
    expect(stored?.sentAtMs).toBeGreaterThan(0);
  });
});
