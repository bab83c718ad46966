/**
 * An approval outlives the bot: a payout waiting for approval when the process is killed
 * (SIGKILL, no chance to clean up) is still there after a restart, its card still works,
 * and the approved payout is sent once.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import {
  isNewReplyWith,
  isPromptIn,
  isPromptReading,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import { APPROVER_ID, PAYER_ID } from "../../support/harness.js";
import { startBot, waitUntil } from "../../support/processes.js";
import { lapsePollerLease, worldPerTest } from "../../support/world.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("an approval across a restart", () => {
  const world = worldPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("keeps the payout waiting through a kill, and sends it once when approved after", async () => {
    const first = await startBot(world.env);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = world.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    await sendAndWait(world.emulator, approver, "/help");
    const prompt = await showPrompt(world.emulator, payer, "/pay 670000001 250000");
    const card = world.emulator.waitForMessage(
      (m) => isPromptIn(APPROVER_ID)(m) && plainText(m).includes("Approval needed"),
    );
    const waiting = world.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const sent = await card;

    await first.process.kill("SIGKILL");
    await lapsePollerLease(world);
    const [payout] = await world.stores.payouts.listInState("awaiting_approval");
    expect(payout).toMatchObject({ initiatorId: PAYER_ID, amount: 250_000 });
    if (!payout) throw new Error("the payout did not survive");

    await startBot(world.env);
    const told = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Approved by Ama"),
      15_000,
    );
    // Killed before its card was recorded, the first bot's card is sent again by this one,
    // maybe before the answer: wait for the list's title itself.
    const listed = await sendAndWait(
      world.emulator,
      approver,
      "/approvals",
      isNewReplyWith(APPROVER_ID, "oldest first"),
    );
    expect(plainText(listed)).toBe("🖊 1 waiting for your approval, oldest first:");
    const press = await approver.pressButton(sent, "✅ Approve");
    expect((await world.emulator.waitForCallbackAnswer(press.callbackQueryId, 10_000)).text).toBe(
      "Approved. Sending…",
    );
    await told;
    await waitUntil(
      async () => (await world.stores.payouts.get(payout.id))?.state === "success",
      "the approved payout to be paid",
    );
    expect(world.sandbox.countRequests(DISBURSE)).toBe(1);
    expect(await world.stores.payouts.get(payout.id)).toMatchObject({ approvedBy: APPROVER_ID });
  });
});
