/**
 * Removing or demoting a payer cancels what they had open, end to end: their prompt and
 * their request waiting for approval are cancelled (nothing is ever sent), the approver's
 * card says why, the payer is told what was cancelled and why, and the admins get one
 * summary of the change.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../src/logger.js";
import { applyBootstrapStaff } from "../../src/payouts/staff-bootstrap.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
} from "../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

/** The payer asks for 250,000 (waits for approval), then opens a prompt for 5,000. */
async function openBoth(h: Harness) {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
  const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
  for (const user of [payer, approver, admin]) await sendAndWait(h.emulator, user, "/help");
  const request = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
  const cardSent = h.emulator.waitForMessage(
    (m) => isPromptIn(APPROVER_ID)(m) && plainText(m).includes("Approval needed"),
  );
  const waiting = h.emulator.waitForMessage(isPromptReading(request, "Waiting for approval"));
  await payer.pressButton(request, 0);
  await waiting;
  const card: SentMessage = await cardSent;
  const prompt = await showPrompt(h.emulator, payer, "/pay 670000002 5000");
  const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 2 });
  const states = items.map((payout) => payout.state).sort();
  expect(states).toEqual(["awaiting_approval", "awaiting_confirmation"]);
  return { payer, approver, admin, card, prompt, ids: items.map((payout) => payout.id) };
}

describe("a payer who loses their standing", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  for (const change of [
    { how: "removed", command: `/staff remove ${PAYER_ID}`, told: "Awa removed you from staff" },
    {
      how: "demoted to viewer",
      command: `/staff add ${PAYER_ID} viewer`,
      told: "Awa changed your role to viewer",
    },
  ]) {
    it(`has their prompt and request cancelled when ${change.how}, and everyone is told`, async () => {
      const { payer, admin, card, prompt, ids } = await openBoth(h);
      const cardEdited = h.emulator.waitForMessage(
        (m) =>
          m.chatId === APPROVER_ID &&
          m.messageId === card.messageId &&
          plainText(m).includes("Cancelled: Paul can no longer pay"),
      );
      const payerTold = h.emulator.waitForMessage(
        (m) => m.chatId === PAYER_ID && plainText(m).includes("can no longer pay"),
      );
      const promptCancelled = h.emulator.waitForMessage(isPromptReading(prompt, "Cancelled"));
      const adminsTold = h.emulator.waitForMessage(
        (m) => m.chatId === ADMIN_ID && plainText(m).includes("Staff change"),
      );
      await sendAndWait(h.emulator, admin, change.command);

      for (const id of ids) {
        expect((await h.app.stores.payouts.get(id))?.state).toBe("cancelled");
      }
      expect((await cardEdited).replyMarkup ?? []).toHaveLength(0);
      const toPayer = plainText(await payerTold);
      expect(toPayer).toContain(change.told);
      expect(toPayer).toContain("250,000 FCFA");
      expect(toPayer).toContain("5,000 FCFA");
      const toAdmins = plainText(await adminsTold);
      expect(toAdmins).toContain("Paul");
      expect(toAdmins).toContain("Cancelled (2)");

      // The prompt loses its buttons; a Confirm pressed on it anyway pays nothing.
      expect((await promptCancelled).replyMarkup ?? []).toHaveLength(0);
      const confirm = prompt.replyMarkup?.flat()[0]?.callback_data ?? "";
      const press = await payer.pressCallbackData(prompt.messageId, confirm);
      await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
      expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    });
  }

  it("does the same when STAFF gives a payer a role that may not pay at start", async () => {
    const { card, ids } = await openBoth(h);
    const cardEdited = h.emulator.waitForMessage(
      (m) =>
        m.chatId === APPROVER_ID &&
        m.messageId === card.messageId &&
        plainText(m).includes("Cancelled: Paul can no longer pay"),
    );
    const payerTold = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("the STAFF setting changed your role"),
    );
    const adminsTold = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Staff change"),
    );
    // What the next start does with a STAFF that now lists the payer as a viewer.
    const entries = h.app.config.staff.map((entry) =>
      entry.userId === PAYER_ID ? { ...entry, role: "viewer" as const } : entry,
    );
    await applyBootstrapStaff(h.app.stores.staff, h.app.payouts.staff, entries, silentLogger);

    for (const id of ids) {
      expect((await h.app.stores.payouts.get(id))?.state).toBe("cancelled");
    }
    await cardEdited;
    expect(plainText(await payerTold)).toContain("250,000 FCFA");
    expect(plainText(await adminsTold)).toContain("the STAFF setting changed the role of Paul");
    const audited = (await h.app.stores.audit.recent(10)).find((e) => e.action === "staff_set");
    expect(audited).toMatchObject({ actorId: 0, details: { userId: PAYER_ID, oldRole: "payer" } });
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
