/**
 * Four-eyes approval end to end: real Redis, the sandbox over HTTP, the bot through the
 * Telegram emulator. A payout at or over APPROVAL_THRESHOLD_XAF waits after its Confirm;
 * every approver and admin but its initiator gets a card; the first decision wins, the
 * cards say who made it, the payer is told either way, and an approved payout is sent once.
 */
import { describe, expect, it } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
} from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
  VIEWER_ID,
} from "../../support/harness.js";

const APPROVALS = { APPROVAL_THRESHOLD_XAF: "100000" };
const DISBURSE = { method: "POST", path: "/disburse" } as const;

/** The people of these tests, each of whom wrote to the bot once, so it knows their names. */
async function people(h: Harness) {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
  const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
  for (const user of [payer, approver, admin]) await sendAndWait(h.emulator, user, "/help");
  return { payer, approver, admin };
}

/** A card asking `chatId` to approve (a message with Approve and Reject). */
function isCardIn(chatId: number) {
  return (m: SentMessage) => isPromptIn(chatId)(m) && plainText(m).includes("Approval needed");
}

/**
 * `payer` asks to pay `command` and confirms; resolves once the prompt waits for approval
 * and the cards reached `approvers`.
 */
async function askApproval(
  h: Harness,
  payer: EmulatedUser,
  command: string,
  approvers: readonly number[],
): Promise<{ prompt: SentMessage; cards: SentMessage[] }> {
  const prompt = await showPrompt(h.emulator, payer, command);
  const cards = Promise.all(approvers.map((id) => h.emulator.waitForMessage(isCardIn(id))));
  const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
  await payer.pressButton(prompt, 0);
  await waiting;
  return { prompt, cards: await cards };
}

async function stored(h: Harness, userId: number) {
  const { items } = await h.app.stores.payouts.list({ userId, offset: 0, limit: 1 });
  const payout = items[0];
  if (!payout) throw new Error(`user ${userId} has no payout`);
  return payout;
}

describe("four-eyes approval, end to end", () => {
  const h = harnessPerTest({ env: APPROVALS });

  it("waits for an approver, who approves: one POST, every card says so, the payer is told", async () => {
    const { payer, approver } = await people(h);
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
    expect(plainText(prompt)).toContain("From 100,000 FCFA, a second person approves");

    const cards = Promise.all(
      [APPROVER_ID, ADMIN_ID].map((id) => h.emulator.waitForMessage(isCardIn(id))),
    );
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    const pressed = await payer.pressButton(prompt, 0);
    expect((await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId)).text).toBe(
      "Sent for approval.",
    );
    const waitingText = plainText(await waiting);
    expect(waitingText).toContain("Waiting for Awa, Ama to approve it.");
    // While it waits, the payer's only button withdraws the request.
    expect(
      h.emulator
        .message(PAYER_ID, prompt.messageId)
        ?.replyMarkup?.flat()
        .map((button) => button.text),
    ).toEqual(["↩️ Withdraw my request"]);
    const [card, adminCard] = await cards;
    if (!card || !adminCard) throw new Error("no cards");
    const cardText = plainText(card);
    for (const fact of [
      "Jean-Paul Mbarga",
      "+237 670 00 00 01 (MTN MoMo)",
      "250,000 FCFA",
      "rent",
    ]) {
      expect(cardText).toContain(fact);
    }
    expect(cardText).toContain("Asked by Paul on");
    expect(card.replyMarkup?.flat().map((button) => button.callback_data)).toEqual([
      expect.stringMatching(/^a:[\w-]{16}$/),
      expect.stringMatching(/^r:[\w-]{16}$/),
    ]);
    expect(h.emulator.messages(PAYER_ID).filter(isCardIn(PAYER_ID))).toEqual([]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    const approved = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Approved by Ama"),
    );
    const adminSees = h.emulator.waitForMessage(
      (m) =>
        m.chatId === ADMIN_ID &&
        m.messageId === adminCard.messageId &&
        plainText(m).includes("Approved by Ama"),
    );
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
      10_000,
    );
    const approve = await approver.pressButton(card, "✅ Approve");
    expect((await h.emulator.waitForCallbackAnswer(approve.callbackQueryId)).text).toBe(
      "Approved. Sending…",
    );
    expect(plainText(await approved)).toContain("250,000 FCFA for Jean-Paul Mbarga");
    expect((await adminSees).replyMarkup ?? []).toHaveLength(0);
    await paid;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    const mine = h.emulator.message(APPROVER_ID, card.messageId);
    expect(plainText(mine ?? card)).toMatch(/Approved by Ama[\s\S]*Now: /);
    expect(mine?.replyMarkup ?? []).toHaveLength(0);
    const payout = await stored(h, PAYER_ID);
    expect(payout).toMatchObject({ state: "success", approvedBy: APPROVER_ID });
    const decisions = (await h.app.stores.audit.recent(20)).filter((e) => e.payoutId === payout.id);
    expect(decisions.map((e) => [e.action, e.actorId])).toEqual(
      expect.arrayContaining([
        ["request_approval", PAYER_ID],
        ["approve", APPROVER_ID],
        ["submit", APPROVER_ID],
      ]),
    );
  });

  it("takes a rejection and the reason replied to the card, tells the payer both, pays nothing", async () => {
    const { payer, approver, admin } = await people(h);
    const { prompt, cards } = await askApproval(h, payer, "/pay 670000001 300000 supplies", [
      APPROVER_ID,
      ADMIN_ID,
    ]);
    const [card, adminCard] = cards;
    if (!card || !adminCard) throw new Error("no cards");

    const told = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("🚫 Rejected by Ama"),
    );
    const invited = h.emulator.waitForMessage(
      (m) =>
        m.chatId === APPROVER_ID &&
        m.messageId === card.messageId &&
        plainText(m).includes("reply to this message"),
    );
    const reject = await approver.pressButton(card, "🚫 Reject");
    expect((await h.emulator.waitForCallbackAnswer(reject.callbackQueryId)).text).toBe(
      "Rejected. Nothing will be paid.",
    );
    expect(plainText(await invited)).toContain(
      "To tell Paul why, reply to this message with the reason.",
    );
    expect(plainText(await told)).toContain("300,000 FCFA for Jean-Paul Mbarga. Nothing was paid.");
    expect(plainText(h.emulator.message(PAYER_ID, prompt.messageId) ?? prompt)).toContain(
      "Rejected by an approver",
    );

    const reason = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("said why"),
    );
    const replied = h.emulator.waitForMessage((m) => m.chatId === APPROVER_ID && m.editCount === 0);
    await approver.sendText("wrong <b>supplier</b>", { replyTo: card });
    expect(plainText(await replied)).toBe("Thanks: Paul will read your reason.");
    expect(plainText(await reason)).toBe(
      "💬 Ama said why they rejected 300,000 FCFA for Jean-Paul Mbarga: “wrong <b>supplier</b>”",
    );
    await expect
      .poll(() => plainText(h.emulator.message(ADMIN_ID, adminCard.messageId) ?? adminCard))
      .toContain("Reason: wrong <b>supplier</b>");

    const notYours = h.emulator.waitForMessage((m) => m.chatId === ADMIN_ID && m.editCount === 0);
    await admin.sendText("not my call", { replyTo: adminCard });
    expect(plainText(await notYours)).toBe(
      "Only the approver who rejected this payout can give a reason for it.",
    );
    // One reason per rejection: a second reply is answered with the first.
    const again = h.emulator.waitForMessage((m) => m.chatId === APPROVER_ID && m.editCount === 0);
    await approver.sendText("and late", { replyTo: card });
    expect(plainText(await again)).toBe("A reason was already given: “wrong <b>supplier</b>”");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    expect(await stored(h, PAYER_ID)).toMatchObject({
      state: "rejected",
      rejectedBy: APPROVER_ID,
      rejectionReason: "wrong <b>supplier</b>",
    });
  });

  it("refuses the initiator's own approval, even an admin's, and sends them no card", async () => {
    const { admin } = await people(h);
    const { prompt, cards } = await askApproval(h, admin, "/pay 690000001 500000", [APPROVER_ID]);
    expect(plainText(cards[0] ?? prompt)).toContain("Asked by Awa on");
    const payout = await stored(h, ADMIN_ID);
    expect(h.emulator.messages(ADMIN_ID).filter(isCardIn(ADMIN_ID))).toEqual([]);

    for (const data of [`a:${payout.id}`, `r:${payout.id}`]) {
      const forged = await admin.pressCallbackData(prompt.messageId, data);
      const answer = await h.emulator.waitForCallbackAnswer(forged.callbackQueryId);
      expect(answer).toMatchObject({
        showAlert: true,
        text: "You cannot approve or reject your own payout: someone else must.",
      });
    }
    expect(plainText(await sendAndWait(h.emulator, admin, "/approvals"))).toBe(
      "Nothing waits for your approval. 👍",
    );
    expect((await stored(h, ADMIN_ID)).state).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("lets one of two approvers pressing at once decide: one decision, one POST", async () => {
    const { payer, approver, admin } = await people(h);
    const { cards } = await askApproval(h, payer, "/pay 670000003 400000", [APPROVER_ID, ADMIN_ID]);
    const [card, adminCard] = cards;
    if (!card || !adminCard) throw new Error("no cards");

    const presses = await Promise.all([
      approver.pressButton(card, "✅ Approve"),
      admin.pressButton(adminCard, "✅ Approve"),
      approver.pressButton(card, "✅ Approve"),
      admin.pressButton(adminCard, "🚫 Reject"),
    ]);
    const answers = await Promise.all(
      presses.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
    );
    // Whichever press Redis saw first decides (Approve reads the duplicate rule first, so
    // the Reject may win the race): one decision, and the others are told it was made.
    const approved = answers.filter((a) => a.text === "Approved. Sending…").length;
    const rejected = answers.filter((a) => a.text === "Rejected. Nothing will be paid.").length;
    expect(approved + rejected).toBe(1);
    expect(answers.filter((a) => a.text === "Already decided.")).toHaveLength(3);
    await expect
      .poll(async () => (await stored(h, PAYER_ID)).state)
      .toBe(approved ? "pending" : "rejected");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(approved);
    const payout = await stored(h, PAYER_ID);
    const decisions = (await h.app.stores.audit.recent(30)).filter(
      (e) => e.payoutId === payout.id && ["approve", "reject"].includes(e.action),
    );
    expect(decisions).toHaveLength(1);
    // Both cards end up saying who decided, and neither keeps its buttons.
    const deciderId = payout.approvedBy ?? payout.rejectedBy;
    const decider = deciderId === APPROVER_ID ? "Ama" : "Awa";
    const decision = approved ? "Approved" : "Rejected";
    for (const [chatId, sent] of [
      [APPROVER_ID, card],
      [ADMIN_ID, adminCard],
    ] as const) {
      await expect
        .poll(() => plainText(h.emulator.message(chatId, sent.messageId) ?? sent))
        .toContain(`${decision} by ${decider}`);
      expect(h.emulator.message(chatId, sent.messageId)?.replyMarkup ?? []).toHaveLength(0);
    }
  });

  it("checks the role at the press: an approver demoted since the card cannot approve", async () => {
    const { payer, approver } = await people(h);
    const { cards } = await askApproval(h, payer, "/pay 670000001 150000", [APPROVER_ID, ADMIN_ID]);
    const [card] = cards;
    if (!card) throw new Error("no card");
    await h.app.stores.staff.set(APPROVER_ID, "payer");
    const press = await approver.pressButton(card, "✅ Approve");
    expect(await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).toMatchObject({
      showAlert: true,
      text: "Only approvers and admins can approve or reject payouts.",
    });
    expect((await stored(h, PAYER_ID)).state).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("lists what waits with /approvals, with a card to act on; viewers are refused", async () => {
    const { payer, approver } = await people(h);
    const { cards } = await askApproval(h, payer, "/collect 690000001 120000 invoice 7", [
      APPROVER_ID,
      ADMIN_ID,
    ]);
    const [firstCard] = cards;
    if (!firstCard) throw new Error("no card");
    const listed = h.emulator.waitForMessage(isCardIn(APPROVER_ID));
    const title = await sendAndWait(h.emulator, approver, "/approvals");
    expect(plainText(title)).toBe("🖊 1 waiting for your approval, oldest first:");
    const card = await listed;
    expect(plainText(card)).toContain("Approval needed: a collection request");
    expect(plainText(card)).toContain("From: Aïcha Nkoulou");

    // The card Ama did not press, in her own chat, says so too, and the admin's.
    const decided = [APPROVER_ID, ADMIN_ID].map((chatId, index) =>
      h.emulator.waitForMessage(
        (m) =>
          m.chatId === chatId &&
          m.messageId === cards[index]?.messageId &&
          plainText(m).startsWith("✅ Approved by Ama"),
      ),
    );
    await approver.pressButton(card, "✅ Approve");
    for (const edited of await Promise.all(decided))
      expect(edited.replyMarkup ?? []).toHaveLength(0);
    await expect.poll(async () => (await stored(h, PAYER_ID)).state).toBe("pending");
    expect(h.sandbox.countRequests({ method: "POST", path: "/collect" })).toBe(1);

    const viewer = h.emulator.user({ id: VIEWER_ID, languageCode: "en" });
    expect(plainText(await sendAndWait(h.emulator, viewer, "/approvals"))).toBe(
      "Only approvers and admins can approve payouts.",
    );
  });
});

describe("an approval nobody decides", () => {
  // The bot's clock runs with the real one, and jumps ahead when the test says.
  let aheadMs = 0;
  const h = harnessPerTest({ env: APPROVALS, now: () => Date.now() + aheadMs });

  it("expires after APPROVAL_TTL_HOURS: the payer and the approvers are told, nothing is paid", async () => {
    aheadMs = 0;
    const { payer, approver } = await people(h);
    const { prompt, cards } = await askApproval(h, payer, "/pay 670000001 200000", [APPROVER_ID]);
    const [card] = cards;
    if (!card) throw new Error("no card");

    const told = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && m.editCount === 0 && plainText(m).startsWith("⌛ Expired"),
    );
    const cardExpired = h.emulator.waitForMessage(
      (m) =>
        m.messageId === card.messageId &&
        m.chatId === APPROVER_ID &&
        plainText(m).includes("Expired"),
    );
    aheadMs = 24 * 3_600_000;
    expect(plainText(await told)).toBe(
      "⌛ Expired: nobody approved 200,000 FCFA for Jean-Paul Mbarga in time. Nothing was paid.",
    );
    expect((await cardExpired).replyMarkup ?? []).toHaveLength(0);
    expect(plainText(h.emulator.message(PAYER_ID, prompt.messageId) ?? prompt)).toContain(
      "Expired",
    );
    const press = await approver.pressCallbackData(
      card.messageId,
      `a:${(await stored(h, PAYER_ID)).id}`,
    );
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Already decided.",
    );
    expect(await stored(h, PAYER_ID)).toMatchObject({ state: "expired" });
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    const [entry] = (await h.app.stores.audit.recent(10)).filter((e) => e.action === "expire");
    expect(entry).toMatchObject({ actorRole: "system", from: "awaiting_approval", to: "expired" });
  });
});
