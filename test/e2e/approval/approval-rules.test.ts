/**
 * Approval rules end to end (APPROVAL_RULES): real Redis, the sandbox over HTTP, the bot
 * through the Telegram emulator. A payout in a band of two waits for two distinct people,
 * never its initiator; the first signature is recorded and shown on every card, the last one
 * sends it in the same atomic step; the same person twice, a second account of the
 * initiator, a signer removed before the last one, and two last signatures at once.
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

const SECOND_APPROVER_ID = 1005;
const SECOND_ACCOUNT = 2001;
const RULES = {
  APPROVAL_RULES: "100000:1; 200000:2(approver,admin)",
  STAFF: `${ADMIN_ID}:admin,${PAYER_ID}:payer,${VIEWER_ID}:viewer,${APPROVER_ID}:approver,${SECOND_APPROVER_ID}:approver`,
};
const DISBURSE = { method: "POST", path: "/disburse" } as const;

type Language = "en" | "fr";

/** The people of these tests, each of whom wrote to the bot once (names, chats). */
async function people(h: Harness, languageCode: Language = "en") {
  const user = (id: number, firstName: string) => h.emulator.user({ id, firstName, languageCode });
  const payer = user(PAYER_ID, "Paul");
  const approver = user(APPROVER_ID, "Ama");
  const admin = user(ADMIN_ID, "Awa");
  const second = user(SECOND_APPROVER_ID, "Kofi");
  for (const one of [payer, approver, admin, second]) await sendAndWait(h.emulator, one, "/help");
  return { payer, approver, admin, second };
}

const CARD_TITLE: Record<Language, string> = { en: "Approval needed", fr: "Approbation" };

function isCardIn(chatId: number, language: Language = "en") {
  return (m: SentMessage) => isPromptIn(chatId)(m) && plainText(m).includes(CARD_TITLE[language]);
}

/** `payer` asks for `command` and confirms; resolves with the payout's id and the cards. */
async function askApproval(
  h: Harness,
  payer: EmulatedUser,
  command: string,
  approvers: readonly number[],
  language: Language = "en",
): Promise<{ id: string; prompt: SentMessage; cards: Map<number, SentMessage> }> {
  const prompt = await showPrompt(h.emulator, payer, command);
  const cards = Promise.all(
    approvers.map((id) => h.emulator.waitForMessage(isCardIn(id, language))),
  );
  const waitingText = language === "en" ? "Waiting for approval" : "En attente";
  const waiting = h.emulator.waitForMessage(isPromptReading(prompt, waitingText));
  await payer.pressButton(prompt, 0);
  await waiting;
  const { items } = await h.app.stores.payouts.list({ userId: payer.id, offset: 0, limit: 1 });
  const received = await cards;
  return {
    id: items[0]?.id ?? "",
    prompt,
    cards: new Map(approvers.map((id, i) => [id, received[i] as SentMessage])),
  };
}

function cardOf(cards: Map<number, SentMessage>, chatId: number): SentMessage {
  const card = cards.get(chatId);
  if (!card) throw new Error(`no card in ${chatId}`);
  return card;
}

/** Presses Approve on `card` as `user`; resolves with the answer's text. */
async function approveAs(h: Harness, user: EmulatedUser, card: SentMessage): Promise<string> {
  const press = await user.pressButton(card, 0);
  return (await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text ?? "";
}

/** Resolves once `card` (in `chatId`) is edited to contain `text`. */
function cardReading(h: Harness, card: SentMessage, text: string) {
  return h.emulator.waitForMessage(
    (m) =>
      m.chatId === card.chatId && m.messageId === card.messageId && plainText(m).includes(text),
  );
}

describe("approval rules, end to end", () => {
  const h = harnessPerTest({ env: RULES });

  it("pays a payout of the band of two only after the second signature: one POST", async () => {
    const { payer, approver, admin } = await people(h);
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
    expect(plainText(prompt)).toContain("From 200,000 FCFA, 2 different people sign");
    await payer.pressButton(prompt, 0);
    const cards = await Promise.all(
      [APPROVER_ID, ADMIN_ID].map((id) => h.emulator.waitForMessage(isCardIn(id))),
    );
    const [card, adminCard] = cards as [SentMessage, SentMessage];
    expect(plainText(card)).toContain("2 signatures: none given yet.");

    const adminSees = cardReading(h, adminCard, "2 signatures: 1 given, by Ama on");
    expect(await approveAs(h, approver, card)).toBe(
      "🖊 Signed: 1 of 2 signatures. It is paid once the last one is given.",
    );
    // Every card shows who signed; nothing left for the API.
    await adminSees;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    expect(items[0]).toMatchObject({ state: "awaiting_approval" });

    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
      10_000,
    );
    const adminCardNow = h.emulator.message(ADMIN_ID, adminCard.messageId) ?? adminCard;
    expect(await approveAs(h, admin, adminCardNow)).toBe("Approved. Sending…");
    await paid;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    const payout = await h.app.stores.payouts.get(items[0]?.id ?? "");
    expect(payout).toMatchObject({ state: "success", approvedBy: ADMIN_ID });
    expect(payout?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID, ADMIN_ID]);
    const entries = (await h.app.stores.audit.recent(30)).filter((e) => e.payoutId === payout?.id);
    expect(entries.map((e) => [e.action, e.actorId])).toEqual(
      expect.arrayContaining([
        ["sign", APPROVER_ID],
        ["approve", ADMIN_ID],
      ]),
    );
    // The card of the last signer says who signed before.
    const last = h.emulator.message(APPROVER_ID, card.messageId);
    expect(plainText(last ?? card)).toMatch(/Approved by Awa[\s\S]*Signed by Ama on .*, Awa on/);
  });

  it("keeps a payout of the band of one as today: one approval sends it", async () => {
    const { payer, approver } = await people(h);
    const { cards } = await askApproval(h, payer, "/pay 670000001 150000", [APPROVER_ID]);
    const card = cardOf(cards, APPROVER_ID);
    expect(plainText(card)).not.toContain("signatures");
    expect(await approveAs(h, approver, card)).toBe("Approved. Sending…");
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("refuses the same approver signing twice, with a clear message", async () => {
    const { payer, approver } = await people(h);
    const { id, cards } = await askApproval(h, payer, "/pay 670000001 250000", [APPROVER_ID]);
    const card = cardOf(cards, APPROVER_ID);
    await approveAs(h, approver, card);
    const again = h.emulator.message(APPROVER_ID, card.messageId) ?? card;
    expect(await approveAs(h, approver, again)).toBe(
      "You already signed this request: another approver or admin must sign it. Nothing changed.",
    );
    const payout = await h.app.stores.payouts.get(id);
    expect(payout?.state).toBe("awaiting_approval");
    expect(payout?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("refuses the initiator's own second account, made approver after the request", async () => {
    const { admin, approver } = await people(h);
    const { id, cards } = await askApproval(h, admin, "/pay 670000001 250000", [APPROVER_ID]);
    await approveAs(h, approver, cardOf(cards, APPROVER_ID));
    const added = await sendAndWait(h.emulator, admin, `/staff add ${SECOND_ACCOUNT} approver`);
    expect(plainText(added)).toContain(`${SECOND_ACCOUNT} is now`);
    const second = h.emulator.user({ id: SECOND_ACCOUNT, firstName: "Alt", languageCode: "en" });
    const none = await sendAndWait(h.emulator, second, "/approvals");
    const press = await second.pressCallbackData(none.messageId, `a:${id}`);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toContain(
      "You got your approving role after this was asked for",
    );
    const payout = await h.app.stores.payouts.get(id);
    expect(payout?.state).toBe("awaiting_approval");
    expect(payout?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("makes exactly one last signature of two pressed at once: one POST", async () => {
    const { payer, approver, admin, second } = await people(h);
    const { id, cards } = await askApproval(h, payer, "/pay 670000001 250000", [
      APPROVER_ID,
      ADMIN_ID,
      SECOND_APPROVER_ID,
    ]);
    await approveAs(h, approver, cardOf(cards, APPROVER_ID));
    const answers = await Promise.all([
      approveAs(h, admin, cardOf(cards, ADMIN_ID)),
      approveAs(h, second, cardOf(cards, SECOND_APPROVER_ID)),
    ]);
    expect(answers.filter((text) => text === "Approved. Sending…")).toHaveLength(1);
    expect(answers.filter((text) => text === "Already decided.")).toHaveLength(1);
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
    await expect.poll(async () => (await h.app.stores.payouts.get(id))?.state).toBe("success");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("no longer counts a signer removed before the last signature: one more is needed", async () => {
    const { payer, approver, admin, second } = await people(h);
    const { id, cards } = await askApproval(h, payer, "/pay 670000001 250000", [
      APPROVER_ID,
      ADMIN_ID,
      SECOND_APPROVER_ID,
    ]);
    await approveAs(h, approver, cardOf(cards, APPROVER_ID));
    await sendAndWait(h.emulator, admin, `/staff remove ${APPROVER_ID}`);
    expect(await approveAs(h, second, cardOf(cards, SECOND_APPROVER_ID))).toBe(
      "🖊 Signed: 1 of 2 signatures. It is paid once the last one is given.",
    );
    expect((await h.app.stores.payouts.get(id))?.signatures?.map((s) => s.userId)).toEqual([
      SECOND_APPROVER_ID,
    ]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    const adminCard = h.emulator.message(ADMIN_ID, cardOf(cards, ADMIN_ID).messageId);
    expect(await approveAs(h, admin, adminCard ?? cardOf(cards, ADMIN_ID))).toBe(
      "Approved. Sending…",
    );
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("speaks French to French readers: the prompt, the card, the signature", async () => {
    const { payer, approver, admin } = await people(h, "fr");
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000");
    expect(plainText(prompt)).toContain(
      "À partir de 200\u202F000\u00A0FCFA, 2 personnes différentes signent\u202F:",
    );
    await payer.pressButton(prompt, 0);
    const [card, adminCard] = (await Promise.all(
      [APPROVER_ID, ADMIN_ID].map((id) => h.emulator.waitForMessage(isCardIn(id, "fr"))),
    )) as [SentMessage, SentMessage];
    expect(plainText(card)).toContain("2 signatures\u202F: aucune donnée pour l’instant.");
    const adminSees = cardReading(h, adminCard, "2 signatures\u202F: 1 donnée, par Ama le");
    expect(await approveAs(h, approver, card)).toBe(
      "🖊 Signé\u202F: 1 signature sur 2. Le paiement part à la dernière.",
    );
    await adminSees;
    const again = h.emulator.message(APPROVER_ID, card.messageId) ?? card;
    expect(await approveAs(h, approver, again)).toBe(
      "Vous avez déjà signé cette demande\u202F: un autre approbateur ou admin doit la signer. Rien n’a changé.",
    );
    expect(await approveAs(h, admin, adminCard)).not.toContain("déjà");
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("says the rules in words in /limits", async () => {
    const { admin } = await people(h);
    const limits = await sendAndWait(h.emulator, admin, "/limits");
    expect(plainText(limits)).toContain(
      "From 200,000 FCFA: 2 different people sign, approvers or admins; never the person who asked.",
    );
  });
});

describe("approval rules for a batch, by its total", () => {
  const h = harnessPerTest({ env: { ...RULES, APPROVAL_RULES: "3000:1; 5000:2" } });

  /** Three rows of 2,000: 6,000 in all, in the top band (two signatures). */
  const FILE = Buffer.from("phone,amount\n670000110,2000\n670000111,2000\n670000112,2000\n");

  it("needs two signatures for a batch over the top band, and pays it once, after the second", async () => {
    const { payer, approver, admin } = await people(h);
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("couriers.csv", "text/csv", FILE);
    const shown = await preview;
    expect(plainText(shown)).toContain(
      "once you confirm, 2 different people sign the batch as one, and it is paid after the last signature.",
    );
    const isBatchCard = (chatId: number) => (m: SentMessage) =>
      m.chatId === chatId &&
      plainText(m).includes("Approval needed") &&
      (m.replyMarkup ?? []).length > 0;
    const cards = Promise.all(
      [APPROVER_ID, ADMIN_ID].map((id) => h.emulator.waitForMessage(isBatchCard(id))),
    );
    await payer.pressButton(shown, 0);
    const [card, adminCard] = (await cards) as [SentMessage, SentMessage];
    expect(plainText(card)).toContain("2 signatures: none given yet.");

    const adminSees = cardReading(h, adminCard, "2 signatures: 1 given, by Ama on");
    expect(await approveAs(h, approver, card)).toBe(
      "🖊 Signed: 1 of 2 signatures. The batch is paid once the last one is given.",
    );
    await adminSees;
    const again = h.emulator.message(APPROVER_ID, card.messageId) ?? card;
    expect(await approveAs(h, approver, again)).toBe(
      "You already signed this request: another approver or admin must sign it. Nothing changed.",
    );
    const [waiting] = await h.app.stores.batches.list({ limit: 1 });
    expect(waiting?.state).toBe("awaiting_approval");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    const adminNow = h.emulator.message(ADMIN_ID, adminCard.messageId) ?? adminCard;
    expect(await approveAs(h, admin, adminNow)).toBe("Approved: the batch is being paid.");
    await expect.poll(() => h.sandbox.countRequests(DISBURSE), { timeout: 15_000 }).toBe(3);
    const [paid] = await h.app.stores.batches.list({ limit: 1 });
    expect(paid?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID, ADMIN_ID]);
    expect(paid?.approvedBy).toBe(ADMIN_ID);
  });

  it("no longer counts a signer removed while the last signature is being counted: one more is needed", async () => {
    const { payer } = await people(h);
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("couriers.csv", "text/csv", FILE);
    const shown = await preview;
    const sent = h.emulator.waitForMessage(
      (m) => m.chatId === APPROVER_ID && plainText(m).includes("Approval needed"),
    );
    await payer.pressButton(shown, 0);
    await sent;
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    const id = batch?.id ?? "";
    const steps = h.app.payouts.batchApproval;
    const ama = { userId: APPROVER_ID, role: "approver" as const };
    const awa = { userId: ADMIN_ID, role: "admin" as const };
    expect((await steps.approve(id, ama)).outcome).toBe("signed");

    // Awa's Approve reads who stands, then Ama is removed before the signatures are
    // counted into the move: the moment between the two, made to happen here.
    const staff = h.app.stores.staff;
    const list = staff.list.bind(staff);
    let reads = 0;
    staff.list = async () => {
      const members = await list();
      reads += 1;
      if (reads === 2) await staff.remove(APPROVER_ID);
      return members;
    };
    const late = await steps.approve(id, awa).finally(() => {
      staff.list = list;
    });
    expect(reads).toBeGreaterThanOrEqual(2);
    const now = await h.app.stores.batches.get(id);
    expect(now?.state).toBe("awaiting_approval");
    expect(late.outcome).toBe("signed");
    expect(now?.signatures?.map((s) => s.userId)).toEqual([ADMIN_ID]);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
