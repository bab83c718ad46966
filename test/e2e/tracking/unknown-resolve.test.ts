/**
 * Payouts whose outcome is unknown (the answer to POST /disburse was lost): admins list
 * them with /unknown and settle each with /resolve, by a payment id found in the merchant
 * portal or as failed. Every resolution is audited and the payer is told the outcome.
 */
import { request } from "undici";
import { beforeEach, describe, expect, it } from "vitest";
import { type EmulatedUser, plainText } from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import {
  isPromptReading,
  pressAndWait,
  promptRecord,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const h = harnessPerTest();
let admin: EmulatedUser;
let payer: EmulatedUser;

beforeEach(() => {
  admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
  payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
});

/** Sends `text` as `from` and resolves with the text of the bot's next message in that chat. */
async function ask(from: EmulatedUser, text: string): Promise<string> {
  return plainText(await sendAndWait(h.emulator, from, text, (m) => m.chatId === from.id));
}

/** Resolves once `read` gives a value (checked every 20 ms, for at most 5 s). */
async function waitFor<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 250; tries++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the value never came");
}

/** A /pay whose POST /disburse answer is lost (500): the payout ends `unknown`. */
async function unknownPayout(amount: number, afterHandling: boolean): Promise<Payout> {
  const prompt = await showPrompt(h.emulator, payer, `/pay 237670000001 ${amount}`);
  h.sandbox.injectFault({ method: "POST", path: "/disburse", status: 500, afterHandling });
  await pressAndWait(h.emulator, payer, prompt, "Outcome unknown");
  const [payout] = (await h.app.stores.payouts.listInState("unknown")).filter(
    (item) => item.messageId === prompt.messageId,
  );
  if (!payout) throw new Error("the payout is not unknown");
  return payout;
}

/** The sandbox's payment for `amount` (made even though its answer was lost). */
function sandboxPaymentOf(amount: number): string {
  const payment = h.sandbox.snapshot().payments.find((p) => p.amount === amount);
  if (!payment) throw new Error(`the sandbox has no payment of ${amount}`);
  return payment.id;
}

/** A payment made straight on the API, not by the bot. */
async function apiPayment(amount: number): Promise<string> {
  const response = await request(`${h.sandbox.url}/disburse`, {
    method: "POST",
    headers: { "x-api-key": h.sandbox.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ amount, phoneNumber: "237670000001" }),
  });
  await response.body.dump();
  return sandboxPaymentOf(amount);
}

async function stateOf(id: string): Promise<string | undefined> {
  return (await h.app.stores.payouts.get(id))?.state;
}

describe("/unknown and /resolve", () => {
  it("lists an unknown payout for admins, and marks it failed on /resolve REF failed", async () => {
    const payout = await unknownPayout(5000, false);
    expect(h.sandbox.snapshot().payments).toHaveLength(0);

    const list = await ask(admin, "/unknown");
    expect(list).toContain("1 payout with an unknown outcome");
    expect(list).toContain(payout.id);
    // The payer wrote to the bot (the /pay): named, not a bare id.
    expect(list).toContain("by Paul");

    const notice = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("❌ Failed:"),
    );
    const reply = await ask(admin, `/resolve ${payout.id} failed`);
    expect(reply).toContain("Failed");
    expect(plainText(await notice)).toContain("5,000 FCFA for Jean-Paul Mbarga did not go through");
    expect(await stateOf(payout.id)).toBe("failed");

    const audit = await h.app.stores.audit.recent(10);
    expect(audit).toContainEqual(
      expect.objectContaining({
        actorId: ADMIN_ID,
        actorRole: "admin",
        action: "resolve_failed",
        from: "unknown",
        to: "failed",
        payoutId: payout.id,
      }),
    );
    expect(await ask(admin, "/unknown")).toBe("No payout has an unknown outcome. 👍");
    expect(await ask(admin, `/resolve ${payout.id} failed`)).toContain(
      "is not in the unknown state",
    );
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("tracks an unknown payout again from the payment id an admin found, and tells the payer", async () => {
    const payout = await unknownPayout(5000, true);
    const paymentId = sandboxPaymentOf(5000);
    const otherPayment = await apiPayment(7777);

    expect(await ask(admin, `/resolve ${payout.id} pay_not_a_real_one`)).toBe(
      "The payment service knows no payment pay_not_a_real_one; nothing changed.",
    );
    expect(await ask(admin, `/resolve ${payout.id} ${otherPayment}`)).toContain(
      "does not match this payout's number or amount; nothing changed",
    );
    expect(await stateOf(payout.id)).toBe("unknown");

    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid:"),
    );
    const reply = await ask(admin, `/resolve ${payout.id} ${paymentId}`);
    expect(reply).toContain(`Payment id: ${paymentId}`);
    const notice = plainText(await paid);
    expect(notice).toContain("5,000 FCFA to Jean-Paul Mbarga");
    expect(notice).toContain(`Payment id: ${paymentId}`);
    await expect.poll(() => stateOf(payout.id)).toBe("success");

    const audit = await h.app.stores.audit.recent(10);
    expect(audit).toContainEqual(
      expect.objectContaining({
        actorId: ADMIN_ID,
        actorRole: "admin",
        action: "resolve_with_id",
        from: "unknown",
        to: "pending",
        payoutId: payout.id,
      }),
    );
    // The bot never sent the payment again: one POST from the bot, one made by the test.
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(2);
  });

  it("shows admins the payment a callback named for an unknown payout, and settles nothing", async () => {
    const http = h.app.http;
    if (!http) throw new Error("the harness runs the HTTP server");
    h.sandbox.setCallbackUrl(`${http.url}${h.app.config.payment.webhookPath}`);
    const payout = await unknownPayout(8300, true);
    const paymentId = sandboxPaymentOf(8300);
    // The sandbox settles the payment it made and posts a signed callback we cannot place.
    await waitFor(async () => (await h.app.stores.payouts.get(payout.id))?.candidatePaymentId);

    const listing = await ask(admin, "/unknown");
    expect(listing).toContain(`/resolve ${payout.id} ${paymentId}`);
    expect((await h.app.stores.payouts.get(payout.id))?.state).toBe("unknown");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("refuses /unknown and /resolve to anyone but an admin", async () => {
    const payout = await unknownPayout(5000, false);
    expect(await ask(payer, "/unknown")).toBe("Only admins can do that.");
    expect(await ask(payer, `/resolve ${payout.id} failed`)).toBe("Only admins can do that.");
    expect(await stateOf(payout.id)).toBe("unknown");
    expect(await h.app.stores.audit.recent(10)).not.toContainEqual(
      expect.objectContaining({ action: "resolve_failed" }),
    );
  });

  it("explains how to use /resolve when the arguments are wrong", async () => {
    for (const command of ["/resolve", "/resolve onlyone", "/resolve a b c", "/resolve a <b>"]) {
      expect(await ask(admin, command)).toContain("Usage: /resolve REFERENCE PAYMENT_ID");
    }
    expect(await ask(admin, "/resolve no-such-ref failed")).toBe(
      "No payout with reference no-such-ref.",
    );
  });
});

describe("a payout stranded in submitting by a crash", () => {
  it("becomes unknown when tracking resumes, and the payer and admins are told", async () => {
    const now = Date.now();
    const stranded: Payout = {
      id: "stranded-payout-0001",
      kind: "disbursement",
      state: "submitting",
      phone: "237670000001",
      operator: "mtn",
      recipientName: "Jean-Paul Mbarga",
      amount: 6000,
      initiatorId: PAYER_ID,
      chatId: PAYER_ID,
      locale: "en",
      createdAtMs: now - 11 * 60_000,
      updatedAtMs: now - 10 * 60_000,
      expiresAtMs: now - 6 * 60_000,
      claimId: "claim-of-a-dead-bot",
      submittedAtMs: now - 10 * 60_000,
    };
    await h.app.stores.payouts.create(stranded);

    const toPayer = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Outcome unknown"),
    );
    const toAdmin = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Outcome unknown"),
    );
    await h.app.tracker.resume();
    const [payerNotice, adminNotice] = await Promise.all([toPayer, toAdmin]);
    for (const notice of [payerNotice, adminNotice]) {
      expect(plainText(notice)).toContain("6,000 FCFA");
      expect(plainText(notice)).toContain("will NOT be retried automatically");
    }
    expect(await stateOf(stranded.id)).toBe("unknown");
    expect(await ask(admin, "/unknown")).toContain(stranded.id);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });

  it("turns the payer's prompt from Sending… into Outcome unknown", async () => {
    const shown = await showPrompt(h.emulator, payer, "/pay 670000001 7000");
    const payout = await promptRecord(h, shown);
    // A bot that claimed it ten minutes ago and died before sending.
    const claimed = await h.app.stores.payouts.transition(
      payout.id,
      "confirm",
      { submittedAtMs: Date.now() - 10 * 60_000 },
      { claimId: "claim-of-a-dead-bot" },
    );
    expect(claimed.ok).toBe(true);

    const edited = h.emulator.waitForMessage(isPromptReading(shown, "Outcome unknown"));
    await h.app.tracker.resume();
    expect((await edited).replyMarkup ?? []).toHaveLength(0);
    expect(await stateOf(payout.id)).toBe("unknown");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });
});
