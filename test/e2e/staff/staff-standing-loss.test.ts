/**
 * Removing or demoting a payer cancels what they had open, end to end: their prompt and
 * their request waiting for approval are cancelled (nothing is ever sent), the approver's
 * card says why, the payer is told what was cancelled and why, and the admins get one
 * summary of the change.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { applyBootstrapStaff } from "../../../src/payouts/staff-bootstrap.js";
import { keys } from "../../../src/store/keys.js";
import {
  isNewReplyWith,
  isPromptIn,
  isPromptReading,
  promptRecord,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
} from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

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
  await promptRecord(h, prompt);
  const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 2 });
  const states = items.map((payout) => payout.state).sort();
  expect(states).toEqual(["awaiting_approval", "awaiting_confirmation"]);
  return { payer, approver, admin, card, prompt, ids: items.map((payout) => payout.id) };
}

describe("a payer who loses their standing", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  for (const change of [
    {
      how: "removed",
      command: `/staff remove ${PAYER_ID}`,
      reply: "is no longer staff",
      told: "Awa removed you from staff",
    },
    {
      how: "demoted to viewer",
      command: `/staff add ${PAYER_ID} viewer`,
      reply: "is now viewer",
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
      // The admins' summary comes to this chat too, in either order with the reply.
      await sendAndWait(h.emulator, admin, change.command, isNewReplyWith(ADMIN_ID, change.reply));

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

  it("tells the admins once, when all is cancelled: their summary is not due before", async () => {
    const { admin, ids } = await openBoth(h);
    // Look at the outbox after each cancellation, as the notifier's next round would.
    const redis = testRedis();
    const outbox = keys(h.prefix).outbox();
    const dueMidway: string[] = [];
    const payouts = h.app.stores.payouts;
    const transition = payouts.transition.bind(payouts);
    payouts.transition = async (...args) => {
      const result = await transition(...args);
      const queued = await redis.zrange(outbox, 0, -1, "WITHSCORES");
      for (let index = 0; index + 1 < queued.length; index += 2) {
        const [key = "", score = ""] = [queued[index], queued[index + 1]];
        if (key.startsWith("standing_lost:") && Number(score) <= Date.now()) dueMidway.push(key);
      }
      return result;
    };
    try {
      await sendAndWait(
        h.emulator,
        admin,
        `/staff remove ${PAYER_ID}`,
        isNewReplyWith(ADMIN_ID, "is no longer staff"),
      );
      for (const id of ids) {
        expect((await h.app.stores.payouts.get(id))?.state).toBe("cancelled");
      }
      expect(dueMidway).toEqual([]);
      // Once the notifier has delivered it, the admin has one summary, with both.
      await expect
        .poll(async () =>
          (await redis.zrange(outbox, 0, -1)).filter((k) => k.startsWith("standing_lost:")),
        )
        .toEqual([]);
      const summaries = h.emulator
        .messages(ADMIN_ID)
        .filter((m) => plainText(m).includes("Staff change"));
      expect(summaries.map((m) => plainText(m).includes("Cancelled (2)"))).toEqual([true]);
    } finally {
      payouts.transition = transition;
      await redis.quit();
    }
  });

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

/** `count` rows to distinct numbers, `amount` each. */
function file(count: number, amount: number): Buffer {
  const rows = Array.from({ length: count }, (_, index) => `6700001${10 + index},${amount}`);
  return Buffer.from(`phone,amount\n${rows.join("\n")}\n`);
}

describe("the batches of a payer who loses their standing", () => {
  const h = harnessPerTest();

  it("stops a running batch, the admin as the one who stopped it", async () => {
    h.sandbox.injectFault({ ...DISBURSE, delayMs: 700, times: Number.POSITIVE_INFINITY });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await sendAndWait(h.emulator, admin, "/help");
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("couriers.csv", "text/csv", file(12, 1000));
    const running = h.emulator.waitForMessage(
      (m) => plainText(m).includes("paying 12 rows") && m.replyMarkup !== undefined,
    );
    await payer.pressButton(await preview, 0);
    await running;
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBeGreaterThan(0);

    // The admins' summary (queued with the Stop) may come to this chat before the reply.
    await sendAndWait(
      h.emulator,
      admin,
      `/staff remove ${PAYER_ID}`,
      isNewReplyWith(ADMIN_ID, "is no longer staff"),
    );
    const [batch] = await h.app.stores.batches.list({ userId: PAYER_ID, limit: 1 });
    expect(batch?.stoppedBy).toBe(ADMIN_ID);
    expect(["sent", "done"]).toContain(batch?.state);
    // The rows already claimed go on; none is claimed after the Stop.
    const sentAtStop = h.sandbox.countRequests(DISBURSE);
    await expect
      .poll(async () => (await h.app.stores.batches.get(batch?.id ?? ""))?.state, {
        timeout: 20_000,
      })
      .toBe("done");
    expect(h.sandbox.countRequests(DISBURSE)).toBeLessThanOrEqual(sentAtStop + 2);
    expect(h.sandbox.countRequests(DISBURSE)).toBeLessThan(12);
  });

  it("cancels a batch preview not yet confirmed, and takes its buttons away", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await sendAndWait(h.emulator, admin, "/help");
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("couriers.csv", "text/csv", file(3, 1000));
    const shown = await preview;
    const buttonsGone = h.emulator.waitForMessage(
      (m) =>
        m.chatId === PAYER_ID &&
        m.messageId === shown.messageId &&
        (m.replyMarkup ?? []).length === 0,
    );
    // The admins' summary (queued with the cancellation) may come to this chat before the reply.
    await sendAndWait(
      h.emulator,
      admin,
      `/staff add ${PAYER_ID} viewer`,
      isNewReplyWith(ADMIN_ID, "is now viewer"),
    );
    const [batch] = await h.app.stores.batches.list({ userId: PAYER_ID, limit: 1 });
    expect(batch?.state).toBe("cancelled");
    await buttonsGone;
    const confirm = shown.replyMarkup?.flat()[0]?.callback_data ?? "";
    const press = await payer.pressCallbackData(shown.messageId, confirm);
    await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
