/**
 * A batch at or over APPROVAL_THRESHOLD_XAF is approved as one, end to end: Confirm sends it
 * for approval, every approver and admin but its sender gets the preview file and a card in
 * their own language, the first decision wins, the sender cannot decide their own, a
 * rejection or expiry pays nothing and tells the sender, and Approve re-checks the day's caps.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyWith, payAndConfirm, sendAndWait } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
} from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const THRESHOLD = { APPROVAL_THRESHOLD_XAF: "5000" };

/** Three rows of 2,000 (6,000 in all, over the threshold) and one bad number. */
const FILE = Buffer.from(
  "phone,amount\n670000110,2000\n670000111,2000\n12345,1000\n670000112,2000\n",
);

async function people(h: Harness) {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "fr" });
  const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
  for (const user of [payer, approver, admin]) await sendAndWait(h.emulator, user, "/help");
  // The approver chose French: the card and the file come in French.
  await sendAndWait(h.emulator, approver, "/lang fr");
  return { payer, approver, admin };
}

function isCard(chatId: number, title: string) {
  return (m: SentMessage) =>
    m.chatId === chatId && plainText(m).includes(title) && (m.replyMarkup ?? []).length > 0;
}

/**
 * Uploads FILE as `senderId` (default the payer) and presses Confirm; resolves with the
 * approver's card, and the admin's when the admin is not the sender, once sent.
 */
async function sendForApproval(h: Harness, senderId = PAYER_ID) {
  await people(h);
  const payer = h.emulator.user({ id: senderId });
  const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
  await payer.uploadDocument("couriers.csv", "text/csv", FILE);
  const shown = await preview;
  expect(plainText(shown)).toContain(
    "🖊 The total is at or over the approval threshold (5,000 FCFA): once you confirm, the batch goes to an approver as one, and is paid once approved.",
  );
  expect(plainText(shown)).not.toContain("Split");
  const approverCard = h.emulator.waitForMessage(isCard(APPROVER_ID, "Approbation requise"));
  const adminCard =
    senderId === ADMIN_ID
      ? Promise.resolve(undefined)
      : h.emulator.waitForMessage(isCard(ADMIN_ID, "Approval needed"));
  const press = await payer.pressButton(shown, 0);
  const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
  expect(answer.text).toContain("Sent for approval");
  const [batch] = await h.app.stores.batches.list({ limit: 1 });
  if (!batch) throw new Error("no batch");
  const admin = await adminCard;
  return { batch, preview: shown, approverCard: await approverCard, adminCard: admin };
}

/** The admin's card, which every test but the admin's own batch has. */
function present(card: SentMessage | undefined): SentMessage {
  if (!card) throw new Error("no card for the admin");
  return card;
}

describe("batch approval as one", () => {
  const h = harnessPerTest({ env: THRESHOLD });

  it("sends the card and the file to the approvers, pays once approved, and the first decision wins", async () => {
    const sent = await sendForApproval(h);
    const { batch, approverCard } = sent;
    const adminCard = present(sent.adminCard);
    expect(batch.state).toBe("awaiting_approval");
    // The approver reads it in French, with the total, the rows and the skipped ones.
    const card = plainText(approverCard);
    expect(card).toContain(`Approbation requise : lot ${batch.id}`);
    expect(card).toContain("À payer : 3 lignes, 6\u202F000 FCFA au total.");
    expect(card).toContain("Écartées : 1 ligne.");
    expect(card).toContain("• ligne 4 : numéro invalide");
    expect(card).toContain("couriers.csv, 4 lignes");
    const [approverFile] = h.emulator.documents(APPROVER_ID);
    expect(approverFile?.fileName).toMatch(/-preview\.csv$/);
    expect(approverFile?.bytes.toString("utf8")).toContain(
      "4,12345,,,1000,,,écartée,,numéro invalide",
    );
    expect(plainText(adminCard)).toContain("To pay: 3 rows, 6,000 FCFA in all.");
    expect(h.emulator.documents(ADMIN_ID)).toHaveLength(1);
    // Nothing is paid while it waits; the sender has no card.
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    expect(
      h.emulator.messages(PAYER_ID).some((m) => plainText(m).includes("Approval needed")),
    ).toBe(false);

    // The payer's /batches and /batch ID say it waits.
    const payer = h.emulator.user({ id: PAYER_ID });
    expect(plainText(await sendAndWait(h.emulator, payer, "/batches"))).toContain(
      "Waiting for approval",
    );
    const detail = plainText(await sendAndWait(h.emulator, payer, `/batch ${batch.id}`));
    expect(detail).toContain("Waiting for an approver until");

    // Audited in words, in each reader's language.
    const admin = h.emulator.user({ id: ADMIN_ID });
    expect(plainText(await sendAndWait(h.emulator, admin, "/audit"))).toContain(
      "Batch sent for approval",
    );
    await sendAndWait(h.emulator, admin, "/lang fr");
    expect(plainText(await sendAndWait(h.emulator, admin, "/audit"))).toContain(
      "Lot soumis à approbation",
    );
    await sendAndWait(h.emulator, admin, "/lang en");
    const approver = h.emulator.user({ id: APPROVER_ID });

    const told = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Batch"),
    );
    const press = await approver.pressButton(approverCard, 0);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Approuvé : le lot est en cours de paiement.",
    );
    expect(plainText(await told)).toBe(
      `✅ Batch ${batch.id} approved by Ama: paying 3 rows, 6,000 FCFA.`,
    );
    await expect.poll(() => h.sandbox.countRequests(DISBURSE), { timeout: 20_000 }).toBe(3);
    await expect
      .poll(async () => (await h.app.stores.batches.get(batch.id))?.state, { timeout: 20_000 })
      .toBe("done");

    // The admin's card says who decided; a press on it afterwards decides nothing.
    await expect
      .poll(() => plainText(h.emulator.message(ADMIN_ID, adminCard.messageId) ?? adminCard))
      .toContain("Approved by Ama");
    const late = await admin.pressCallbackData(adminCard.messageId, `ba:${batch.id}`);
    expect((await h.emulator.waitForCallbackAnswer(late.callbackQueryId)).text).toBe(
      "Already decided.",
    );
    const rejectLate = await admin.pressCallbackData(adminCard.messageId, `br:${batch.id}`);
    expect((await h.emulator.waitForCallbackAnswer(rejectLate.callbackQueryId)).text).toBe(
      "Already decided.",
    );
    expect(h.sandbox.countRequests(DISBURSE)).toBe(3);
    const approved = await h.app.stores.batches.get(batch.id);
    expect(approved?.approvedBy).toBe(APPROVER_ID);
    expect(approved?.confirmedAtMs).toBeDefined();

    const actions = (await h.app.stores.audit.recent(30)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(["batch_request_approval", "batch_approve"]));
  });

  it("does not let the sender decide their own batch, nor a payer decide one", async () => {
    // An admin's own batch: the approver gets a card, the admin none, and their press is refused.
    const { batch } = await sendForApproval(h, ADMIN_ID);
    expect(
      h.emulator.messages(ADMIN_ID).some((m) => plainText(m).includes("Approval needed")),
    ).toBe(false);
    const admin = h.emulator.user({ id: ADMIN_ID });
    for (const data of [`ba:${batch.id}`, `br:${batch.id}`]) {
      const press = await admin.pressCallbackData(1, data);
      const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
      expect(answer.text).toBe("You cannot approve or reject your own batch: someone else must.");
      expect(answer.showAlert).toBe(true);
    }
    const payer = h.emulator.user({ id: PAYER_ID });
    const press = await payer.pressCallbackData(1, `ba:${batch.id}`);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Only approvers and admins can approve or reject payouts.",
    );
    expect((await h.app.stores.batches.get(batch.id))?.state).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("pays nothing once rejected, and tells the sender", async () => {
    const sent = await sendForApproval(h);
    const { batch, approverCard } = sent;
    const adminCard = present(sent.adminCard);
    const told = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("🚫 Batch"),
    );
    const admin = h.emulator.user({ id: ADMIN_ID });
    const press = await admin.pressButton(adminCard, 1);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Rejected. Nothing will be paid.",
    );
    expect(plainText(await told)).toBe(`🚫 Batch ${batch.id} rejected by Awa: nothing was paid.`);
    await expect
      .poll(() =>
        plainText(h.emulator.message(APPROVER_ID, approverCard.messageId) ?? approverCard),
      )
      .toContain("Refusé par Awa");
    const approver = h.emulator.user({ id: APPROVER_ID });
    const late = await approver.pressCallbackData(approverCard.messageId, `ba:${batch.id}`);
    expect((await h.emulator.waitForCallbackAnswer(late.callbackQueryId)).text).toBe(
      "Déjà décidé.",
    );
    // Never confirmed: the digest's confirmed batches leave it out.
    expect(await h.app.stores.batches.get(batch.id)).toMatchObject({ state: "rejected" });
    expect((await h.app.stores.batches.get(batch.id))?.confirmedAtMs).toBeUndefined();
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    const payer = h.emulator.user({ id: PAYER_ID });
    expect(plainText(await sendAndWait(h.emulator, payer, "/batches"))).toContain("Rejected");
    expect(plainText(await sendAndWait(h.emulator, admin, "/audit"))).toContain("Batch rejected");
  });
});

describe("batch approval over the day's limit", () => {
  const h = harnessPerTest({ env: { ...THRESHOLD, PAYER_DAILY_LIMIT_XAF: "9000" } });

  it("refuses Approve when the total no longer fits the sender's limit, telling the approver", async () => {
    const { batch, approverCard } = await sendForApproval(h);
    // Meanwhile the sender pays 4,000 on their own: 5,000 left, the batch is 6,000.
    const payer = h.emulator.user({ id: PAYER_ID });
    await payAndConfirm(h.emulator, payer, "/pay 670000001 4000");
    const approver = h.emulator.user({ id: APPROVER_ID });
    const press = await approver.pressButton(approverCard, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toBe(
      "Refusé : le total du lot dépasse la limite journalière de son auteur (reste 5\u202F000 FCFA aujourd’hui). Rien n’a été payé ; il attend toujours une décision.",
    );
    expect(answer.showAlert).toBe(true);
    expect((await h.app.stores.batches.get(batch.id))?.state).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    const refused = (await h.app.stores.audit.recent(20)).find(
      (entry) => entry.action === "limit_refused" && entry.batchId === batch.id,
    );
    expect(refused).toMatchObject({ amount: 6000, details: { step: "approve" } });
  });
});

describe("a batch nobody approves", () => {
  // The bot's clock runs with the real one, and jumps ahead when the test says.
  let aheadMs = 0;
  const h = harnessPerTest({ env: THRESHOLD, now: () => Date.now() + aheadMs });

  it("expires after APPROVAL_TTL_HOURS: the sender and the approvers are told, nothing is paid", async () => {
    aheadMs = 0;
    const sent = await sendForApproval(h);
    const { batch } = sent;
    const adminCard = present(sent.adminCard);
    const told = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("⌛ Batch"),
    );
    const cardExpired = h.emulator.waitForMessage(
      (m) =>
        m.chatId === ADMIN_ID &&
        m.messageId === adminCard.messageId &&
        plainText(m).includes("Expired"),
    );
    aheadMs = 24 * 3_600_000;
    expect(plainText(await told)).toBe(
      `⌛ Batch ${batch.id} expired: nobody approved it in time. Nothing was paid.`,
    );
    expect((await cardExpired).replyMarkup ?? []).toHaveLength(0);
    const admin = h.emulator.user({ id: ADMIN_ID });
    const press = await admin.pressCallbackData(adminCard.messageId, `ba:${batch.id}`);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Already decided.",
    );
    expect((await h.app.stores.batches.get(batch.id))?.state).toBe("cancelled");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    const [entry] = (await h.app.stores.audit.recent(20)).filter(
      (e) => e.action === "batch_approval_expire",
    );
    expect(entry).toMatchObject({
      actorRole: "system",
      details: { from: "awaiting_approval", to: "cancelled" },
    });
  });
});

describe("the standing of who decides a batch, read at the decision", () => {
  const h = harnessPerTest({ env: THRESHOLD });
  const SECOND_ACCOUNT = 2001;

  /** The callback data of a card's first button (Approve), as a forger would copy it. */
  function approveData(card: SentMessage): string {
    const data = (card.replyMarkup ?? [])[0]?.[0];
    if (!data || !("callback_data" in data) || !data.callback_data) throw new Error("no button");
    return data.callback_data;
  }

  it("refuses an approver made after the batch was sent (no second account approves its sender's own batch)", async () => {
    const { batch, approverCard } = await sendForApproval(h, ADMIN_ID);
    const admin = h.emulator.user({ id: ADMIN_ID });
    await sendAndWait(h.emulator, admin, `/staff add ${SECOND_ACCOUNT} approver`);
    const second = h.emulator.user({ id: SECOND_ACCOUNT, firstName: "Alt", languageCode: "en" });
    const hello = await sendAndWait(h.emulator, second, "/help");
    const press = await second.pressCallbackData(hello.messageId, approveData(approverCard));
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toContain(
      "You got your approving role after this was asked for",
    );
    expect((await h.app.stores.batches.get(batch.id))?.state).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("refuses to approve the batch of a sender removed since, and lets it be rejected", async () => {
    const { batch, approverCard } = await sendForApproval(h);
    const admin = h.emulator.user({ id: ADMIN_ID });
    // The removal also brings this admin a staff-change notice, in either order with the reply.
    await sendAndWait(
      h.emulator,
      admin,
      `/staff remove ${PAYER_ID}`,
      isNewReplyWith(ADMIN_ID, "is no longer staff"),
    );
    const approver = h.emulator.user({ id: APPROVER_ID });
    const press = await approver.pressButton(approverCard, 0);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "La personne qui a demandé ne peut plus payer (retirée, ou son rôle a changé) : la demande ne peut pas être approuvée. Rien n’a été payé ; vous pouvez la refuser.",
    );
    expect((await h.app.stores.batches.get(batch.id))?.state).toBe("awaiting_approval");
    const reject = await approver.pressButton(approverCard, 1);
    await h.emulator.waitForCallbackAnswer(reject.callbackQueryId);
    await expect
      .poll(async () => (await h.app.stores.batches.get(batch.id))?.state)
      .toBe("rejected");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});

describe("a batch waiting for approval, sent again", () => {
  const h = harnessPerTest({ env: { ...THRESHOLD, DUPLICATE_WINDOW_MINUTES: "60" } });

  it("leaves the second file's rows out as repeats of the waiting batch's", async () => {
    const { batch, preview } = await sendForApproval(h);
    const payer = h.emulator.user({ id: PAYER_ID });
    const again = h.emulator.waitForMessage(
      (m) => plainText(m).includes("is checked") && m.messageId !== preview.messageId,
      20_000,
    );
    await payer.uploadDocument("couriers.csv", "text/csv", FILE);
    const text = plainText(await again);
    expect(text).toContain(`⚠️ This file is the same as batch ${batch.id}, sent before by Paul.`);
    expect(text).toContain("⚠️ 3 rows repeat a recent payout (same number and amount)");
    expect(text).toContain(`row 2 of batch ${batch.id} (Waiting for approval)`);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
