/**
 * Who stands behind a decision is read at the decision, in the approval's own atomic step,
 * from the staff record: an account made approver after a payout was asked for cannot
 * decide on it (nobody approves their own payout with a second account), and a payer
 * removed or demoted since asking cannot have the request approved.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
} from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const SECOND_ACCOUNT = 2001;

/** `userId` asks for 250,000 and confirms; resolves with the payout's id and the approver's card. */
async function askApproval(h: Harness, userId: number): Promise<{ id: string; card: SentMessage }> {
  const asker = h.emulator.user({ id: userId, firstName: "Asker", languageCode: "en" });
  // The approver has written to the bot before (a chat it may write to).
  const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
  await sendAndWait(h.emulator, approver, "/help");
  const prompt = await showPrompt(h.emulator, asker, "/pay 670000001 250000 rent");
  const card = h.emulator.waitForMessage(
    (m) => isPromptIn(APPROVER_ID)(m) && plainText(m).includes("Approval needed"),
  );
  const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
  await asker.pressButton(prompt, 0);
  await waiting;
  const { items } = await h.app.stores.payouts.list({ userId, offset: 0, limit: 1 });
  return { id: items[0]?.id ?? "", card: await card };
}

async function stateOf(h: Harness, id: string) {
  return (await h.app.stores.payouts.get(id))?.state;
}

describe("standing at the decision", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("refuses an approver whose role was granted after the payout was asked for", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const { id } = await askApproval(h, ADMIN_ID);
    // The admin makes a second account of theirs an approver, and tries to approve with it.
    const added = await sendAndWait(h.emulator, admin, `/staff add ${SECOND_ACCOUNT} approver`);
    expect(plainText(added)).toContain(`${SECOND_ACCOUNT} is now`);
    const second = h.emulator.user({ id: SECOND_ACCOUNT, firstName: "Alt", languageCode: "en" });
    const none = await sendAndWait(h.emulator, second, "/approvals");
    expect(plainText(none)).toBe("Nothing waits for your approval. 👍");

    const press = await second.pressCallbackData(none.messageId, `a:${id}`);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toBe(
      "You got your approving role after this was asked for, so you cannot decide on it: someone who was an approver or admin then must. Nothing was decided.",
    );
    const reject = await second.pressCallbackData(none.messageId, `r:${id}`);
    expect((await h.emulator.waitForCallbackAnswer(reject.callbackQueryId)).text).toContain(
      "You got your approving role after this was asked for",
    );
    expect(await stateOf(h, id)).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    // An approver who was one when it was asked still decides.
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const cards = await sendAndWait(
      h.emulator,
      approver,
      "/approvals",
      (m) => isPromptIn(APPROVER_ID)(m) && plainText(m).includes("Approval needed"),
    );
    const approve = await approver.pressButton(cards, "✅ Approve");
    expect((await h.emulator.waitForCallbackAnswer(approve.callbackQueryId)).text).toBe(
      "Approved. Sending…",
    );
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  // A removal through /staff cancels the request (staff-standing-loss.test.ts); these
  // change the staff record alone, as a removal whose cancellations have not run yet (made
  // on another replica a moment ago) leaves it: the approval's own step still refuses.
  it("refuses to approve the request of a payer removed since asking, and sends nothing", async () => {
    const { id, card } = await askApproval(h, PAYER_ID);
    expect(await h.app.stores.staff.remove(PAYER_ID)).toBe(true);

    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const press = await approver.pressButton(card, "✅ Approve");
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "The person who asked can no longer pay (removed, or their role changed): it cannot be approved. Nothing was paid; you can reject it.",
    );
    expect(await stateOf(h, id)).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    // Rejecting it stays possible, and gives its amount back as any rejection does.
    const reject = await approver.pressButton(card, "🚫 Reject");
    expect((await h.emulator.waitForCallbackAnswer(reject.callbackQueryId)).text).toBe(
      "Rejected. Nothing will be paid.",
    );
    expect(await stateOf(h, id)).toBe("rejected");
  });

  it("refuses to approve the request of a payer demoted to viewer since asking", async () => {
    const { id, card } = await askApproval(h, PAYER_ID);
    await h.app.stores.staff.set(PAYER_ID, "viewer");
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const press = await approver.pressButton(card, "✅ Approve");
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toContain(
      "The person who asked can no longer pay",
    );
    expect(await stateOf(h, id)).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
