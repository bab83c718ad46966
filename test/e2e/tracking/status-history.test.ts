/** /status and /history, end to end: what staff can look up, and paging through payouts. */
import { request } from "undici";
import { describe, expect, it } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
} from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import {
  isNewReplyWith,
  payAndConfirm,
  pressAndWait,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import {
  ADMIN_ID,
  harnessPerTest,
  PAYER_ID,
  STRANGER_ID,
  VIEWER_ID,
} from "../../support/harness.js";

const h = harnessPerTest();

const FIRST_NAMES = new Map([
  [ADMIN_ID, "Ama"],
  [PAYER_ID, "Paul"],
  [VIEWER_ID, "Vera"],
]);

function user(id: number): EmulatedUser {
  const firstName = FIRST_NAMES.get(id) ?? `User ${id}`;
  return h.emulator.user({ id, firstName, languageCode: "en" });
}

/** Sends `text` as `from` and resolves with the bot's next message (new or edited) in that chat. */
async function ask(from: EmulatedUser, text: string): Promise<string> {
  return plainText(await sendAndWait(h.emulator, from, text, (m) => m.chatId === from.id));
}

/** A payment made straight on the API (not through the bot), settled as the sandbox scripts it. */
async function apiPayment(phone: string, amount: number): Promise<string> {
  const response = await request(`${h.sandbox.url}/disburse`, {
    method: "POST",
    headers: { "x-api-key": h.sandbox.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ amount, phoneNumber: phone }),
  });
  const payment: unknown = await response.body.json();
  if (typeof payment !== "object" || payment === null || !("id" in payment)) {
    throw new Error("the sandbox made no payment");
  }
  const id = String(payment.id);
  await expect.poll(() => h.sandbox.getPayment(id)?.status).not.toBe("pending");
  return id;
}

/** A payout made through the bot by the payer, settled and notified. */
async function paidThroughBot(payer: EmulatedUser): Promise<Payout> {
  const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
  await pressAndWait(
    h.emulator,
    payer,
    prompt,
    (m) => m.chatId === payer.id && plainText(m).startsWith("✅ Paid:"),
  );
  const { items } = await h.app.stores.payouts.list({ userId: payer.id, offset: 0, limit: 1 });
  const [payout] = items;
  if (!payout) throw new Error("no payout stored");
  return payout;
}

describe("/status", () => {
  it("shows any payment the API knows to staff, viewers included", async () => {
    const paymentId = await apiPayment("237670000002", 2500);
    for (const id of [VIEWER_ID, PAYER_ID, ADMIN_ID]) {
      const text = await ask(user(id), `/status ${paymentId}`);
      expect(text).toContain(`🔎 Payment ${paymentId}`);
      expect(text).toContain("Status: ❌ Failed");
      expect(text).toContain("Type: payout");
      expect(text).toContain("Amount: 2,500 FCFA");
      expect(text).toContain("+237 670 00 00 02 (MTN MoMo)");
    }
    expect(h.sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` })).toBe(3);
  });

  it("shows one of our payouts by its reference, to its payer and to a viewer", async () => {
    const payer = user(PAYER_ID);
    const payout = await paidThroughBot(payer);
    for (const from of [payer, user(VIEWER_ID)]) {
      const text = await ask(from, `/status ${payout.id}`);
      expect(text).toContain("Completed");
      expect(text).toContain("To: Jean-Paul Mbarga");
      expect(text).toContain("Amount: 5,000 FCFA");
      expect(text).toContain(`Payment id: ${payout.paymentId}`);
    }
  });

  it("shows one of our payouts by its payment id, with its recipient and payer, even once the API has forgotten it", async () => {
    const payer = user(PAYER_ID);
    const payout = await paidThroughBot(payer);
    const paymentId = payout.paymentId ?? "";
    expect(paymentId).not.toBe("");
    h.sandbox.reset();
    for (const from of [payer, user(VIEWER_ID)]) {
      const text = await ask(from, `/status ${paymentId}`);
      expect(text).toContain("Completed");
      expect(text).toContain("To: Jean-Paul Mbarga");
      expect(text).toContain(`Payment id: ${paymentId}`);
    }
  });

  it("says there is no such payment for an id nobody knows", async () => {
    const text = await ask(user(VIEWER_ID), "/status pay_does_not_exist");
    expect(text).toBe("No payment with id pay_does_not_exist.");
  });

  it.each(["/status", "/status <b>hi</b>", "/status two words", `/status ${"x".repeat(101)}`])(
    "answers %j with how to use it",
    async (command) => {
      const text = await ask(user(VIEWER_ID), command);
      expect(text).toContain("Example: /status");
      expect(h.sandbox.countRequests({ method: "GET", path: /^\/payments\// })).toBe(0);
    },
  );

  it("tells a stranger they have no access", async () => {
    const text = await ask(user(STRANGER_ID), "/status pay_1");
    expect(text).toContain("not allowed");
    expect(h.sandbox.countRequests({ method: "GET", path: /^\/payments\// })).toBe(0);
  });
});

const BASE_MS = Date.now() - 3_600_000;
let seeded = 0;

/** Stores a finished payout made by `initiatorId`, `minutesAgo` before the test started. */
async function seed(initiatorId: number, minutesAgo: number, amount: number): Promise<Payout> {
  seeded += 1;
  const createdAtMs = BASE_MS - minutesAgo * 60_000;
  const payout: Payout = {
    id: `seeded-${seeded}-${initiatorId}-abc`,
    kind: "disbursement",
    state: seeded % 3 === 0 ? "failed" : "success",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount,
    initiatorId,
    chatId: initiatorId,
    locale: "en",
    createdAtMs,
    updatedAtMs: createdAtMs,
    expiresAtMs: createdAtMs + 300_000,
  };
  await h.app.stores.payouts.create(payout);
  return payout;
}

/** The references of the payouts a history message lists, top to bottom. */
function refsIn(message: SentMessage): string[] {
  return plainText(message)
    .split("\n")
    .filter((line) => line.includes(" · "))
    .map((line) => line.split(" · ").at(-1) ?? "");
}

function buttonTexts(message: SentMessage): string[] {
  return (message.replyMarkup ?? []).flat().map((button) => button.text);
}

describe("/history", () => {
  async function seedTwelve() {
    const payers: Payout[] = [];
    for (let i = 0; i < 10; i++) payers.push(await seed(PAYER_ID, 100 - i * 5, 1000 + i));
    const admins = [await seed(ADMIN_ID, 47, 9001), await seed(ADMIN_ID, 1, 9002)];
    return { payers, admins };
  }

  it("pages through the payer's own payouts, newest first, with Older and Newer", async () => {
    const { payers } = await seedTwelve();
    const newestFirst = [...payers].reverse().map((p) => p.id);
    const payer = user(PAYER_ID);

    const first = h.emulator.waitForMessage((m) => m.chatId === PAYER_ID);
    await payer.sendText("/history");
    const page1 = await first;
    expect(plainText(page1)).toContain("Your payouts (page 1 of 2)");
    expect(refsIn(page1)).toEqual(newestFirst.slice(0, 8));
    expect(buttonTexts(page1)).toEqual(["Older ▶"]);

    const older = h.emulator.waitForMessage((m) => m.messageId === page1.messageId);
    await payer.pressButton(page1, "Older ▶");
    const page2 = await older;
    expect(plainText(page2)).toContain("Your payouts (page 2 of 2)");
    expect(refsIn(page2)).toEqual(newestFirst.slice(8));
    expect(buttonTexts(page2)).toEqual(["◀ Newer"]);

    const newer = h.emulator.waitForMessage((m) => m.messageId === page1.messageId);
    await payer.pressButton(page2, "◀ Newer");
    const back = await newer;
    expect(refsIn(back)).toEqual(newestFirst.slice(0, 8));
    expect(h.emulator.messages(PAYER_ID)).toHaveLength(1);
  });

  it.each([
    { who: "an admin", id: ADMIN_ID },
    { who: "a viewer", id: VIEWER_ID },
  ])("shows $who everyone's payouts with who made them", async ({ id }) => {
    const { payers, admins } = await seedTwelve();
    const everyone = [...payers, ...admins]
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .map((p) => p.id);
    const reader = user(id);

    const first = h.emulator.waitForMessage((m) => m.chatId === id);
    await reader.sendText("/history");
    const page1 = await first;
    expect(plainText(page1)).toContain("All payouts (page 1 of 2)");
    expect(refsIn(page1)).toEqual(everyone.slice(0, 8));
    // The reader has written to the bot (/history): named. The payer never has: their id.
    expect(plainText(page1)).toContain(id === ADMIN_ID ? "by Ama" : `by user ${ADMIN_ID}`);
    expect(plainText(page1)).toContain(`by user ${PAYER_ID}`);

    const older = h.emulator.waitForMessage((m) => m.messageId === page1.messageId);
    await reader.pressButton(page1, "Older ▶");
    expect(refsIn(await older)).toEqual(everyone.slice(8));
  });

  it("says payout or collection, to or from whom (masked number), and who made it by name", async () => {
    const payer = user(PAYER_ID);
    await payAndConfirm(h.emulator, payer, "/pay 670000001 5000");
    await payAndConfirm(h.emulator, payer, "/collect 690000003 2000"); // stays pending

    const lines = (await ask(user(VIEWER_ID), "/history"))
      .split("\n")
      .filter((line) => line.includes(" · "));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^⏳ Pending · Collection of 2,000 FCFA from Clarisse Ewane \(69• •• •0 03\) · \d\d \w{3}, \d\d:\d\d UTC\+1 · by Paul · [\w-]+$/,
    );
    expect(lines[1]).toMatch(
      /^\S+ \w+ · Payout of 5,000 FCFA to Jean-Paul Mbarga \(67• •• •0 01\) · .+ · by Paul · [\w-]+$/,
    );
    // The full number is never in the list.
    expect(lines.join("\n")).not.toMatch(/670 ?00 ?00 ?01|690 ?00 ?00 ?03/);
  });

  it("masks numbers so that different ones look different: operator prefix and last three digits", async () => {
    const payer = user(PAYER_ID);
    for (const number of ["670000001", "650000001", "690000001"]) {
      await payAndConfirm(h.emulator, payer, `/pay ${number} 1000`);
    }

    // Their "Paid"/"Failed" notices (and prompt edits) may come first: wait for the list.
    const text = plainText(
      await sendAndWait(h.emulator, payer, "/history", isNewReplyWith(PAYER_ID, "Your payouts")),
    );

    expect(text).toContain("(69• •• •0 01)");
    expect(text).toContain("(65• •• •0 01)");
    expect(text).toContain("(67• •• •0 01)");
    expect(text).not.toMatch(/6[579]0 ?00 ?00 ?01/);
  });

  it("tells a payer with no payouts that there are none", async () => {
    await seed(ADMIN_ID, 1, 500);
    expect(await ask(user(PAYER_ID), "/history")).toBe("No payouts yet.");
  });
});
