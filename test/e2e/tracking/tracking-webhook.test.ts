/**
 * Final statuses reaching the payer through the Payment API's callbacks: the callback is
 * only a hint, the bot re-reads the payment and settles on what the API says, once.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { request } from "undici";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import { signParts } from "../../../src/payments/signature.js";
import { confirmPayout } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";

const SLOW_POLLING = { STATUS_POLL_INTERVAL_MS: "600000" };

/** The sandbox signs with this key, so the tests can sign callbacks exactly as it does. */
let sandboxKey: KeyObject;
let sandboxKeyPem: string;
let strangerKey: KeyObject;

beforeAll(() => {
  sandboxKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  sandboxKeyPem = sandboxKey.export({ type: "pkcs8", format: "pem" }).toString();
  strangerKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
});

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(
  env: Record<string, string>,
  settleDelayMs = 150,
  clockSkewMs = 0,
): Promise<Harness> {
  h = await startHarness({
    env,
    sandbox: { privateKeyPem: sandboxKeyPem, settleDelayMs, clockSkewMs },
  });
  return h;
}

function webhookUrl(harness: Harness): string {
  const http = harness.app.http;
  if (!http) throw new Error("the app runs no HTTP server");
  return `${http.url}${harness.app.config.payment.webhookPath}`;
}

const NOTICE_START = { success: "✅ Paid:", failed: "❌ Failed:", canceled: "⚪ Cancelled:" };

function isNotice(message: SentMessage, prompt: SentMessage): boolean {
  const text = plainText(message);
  return (
    message.chatId === prompt.chatId &&
    message.messageId !== prompt.messageId &&
    Object.values(NOTICE_START).some((start) => text.startsWith(start))
  );
}

/** Notices in the payer's chat about `payout` (the push messages, not the edited prompt). */
function noticesAbout(harness: Harness, prompt: SentMessage, payout: Payout): SentMessage[] {
  return harness.emulator
    .messages(prompt.chatId)
    .filter((m) => isNotice(m, prompt) && plainText(m).includes(payout.paymentId ?? "?"));
}

/** Lets in-flight callbacks, polls and notices finish, so "exactly once" can be counted. */
async function quiet(harness: Harness): Promise<void> {
  await harness.app.webhook.idle();
  await expect.poll(() => harness.app.stores.outbox.size()).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 400));
  await harness.app.webhook.idle();
}

function paymentReads(harness: Harness, paymentId: string): number {
  return harness.sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` });
}

async function postCallback(
  harness: Harness,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const response = await request(webhookUrl(harness), {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: JSON.parse(text) };
}

function signed(harness: Harness, body: string, key = sandboxKey): Record<string, string> {
  const pathAndQuery = harness.app.config.payment.webhookPath;
  return signParts(key, { method: "POST", pathAndQuery, body });
}

function forgedSuccess(payout: Payout): string {
  return JSON.stringify({
    id: payout.paymentId,
    status: "success",
    amount: payout.amount,
    fee: 1,
    phoneNumber: payout.phone,
  });
}

describe("status callbacks, with polling too slow to matter", () => {
  it("settles a success from the callback after re-reading the payment, and tells the payer", async () => {
    const harness = await start(SLOW_POLLING);
    harness.sandbox.setCallbackUrl(webhookUrl(harness));
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000 rent");
    const notice = await harness.emulator.waitForMessage((m) => isNotice(m, prompt));

    const text = plainText(notice);
    expect(text).toContain("✅ Paid: 5,000 FCFA to Jean-Paul Mbarga");
    expect(text).toContain("+237 670 00 00 01");
    expect(text).toContain("Fee: 50 FCFA");
    expect(text).toContain(`Payment id: ${payout.paymentId}`);
    expect(text).toMatch(/Time: \d{2} \w{3},? \d{2}:\d{2}/);
    const edited = harness.emulator.message(prompt.chatId, prompt.messageId);
    expect(edited && plainText(edited)).toContain("Completed");
    // Paid to a number not saved: the payout's message offers to save it, nothing else.
    expect(edited?.replyMarkup?.flat().map((button) => button.text)).toEqual(["📇 Save recipient"]);

    // The callback was taken, and the bot asked the API itself before settling.
    expect(harness.sandbox.callbackAttempts).toMatchObject([
      { paymentId: payout.paymentId, status: "success", outcome: 202 },
    ]);
    expect(paymentReads(harness, payout.paymentId)).toBe(1);
    const read = harness.sandbox.requests.find((r) => r.path === `/payments/${payout.paymentId}`);
    const settledAt = Date.parse(harness.sandbox.getPayment(payout.paymentId)?.updatedAt ?? "");
    expect(read?.atMs).toBeGreaterThanOrEqual(settledAt);

    await quiet(harness);
    expect(noticesAbout(harness, prompt, payout)).toHaveLength(1);
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe("success");
  });

  it.each([
    {
      number: "237670000002",
      status: "failed",
      start: "❌ Failed:",
      title: "Failed",
      next: "What to do: check the number and the name with the recipient, then try again.",
    },
    {
      number: "237670000005",
      status: "canceled",
      start: "⚪ Cancelled:",
      title: "Cancelled by the operator",
      next: "What to do: the operator stopped it; the recipient's account may not accept it.",
    },
  ])("tells the payer about a $status payout from the callback, and what to do", async (row) => {
    const harness = await start(SLOW_POLLING);
    harness.sandbox.setCallbackUrl(webhookUrl(harness));
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const { prompt, payout } = await confirmPayout(harness, payer, `/pay ${row.number} 3000`);
    const notice = await harness.emulator.waitForMessage((m) => isNotice(m, prompt));
    expect(plainText(notice).startsWith(row.start)).toBe(true);
    expect(plainText(notice)).toContain("3,000 FCFA");
    expect(plainText(notice)).toContain(row.next);
    // The sandbox's payment has no description: nothing is quoted.
    expect(plainText(notice)).not.toContain("The payment service said");
    const edited = harness.emulator.message(prompt.chatId, prompt.messageId);
    expect(edited && plainText(edited)).toContain(row.title);
    expect(edited && plainText(edited)).toContain("The money was not sent.");
    expect(edited && plainText(edited)).toContain(row.next);
    expect(paymentReads(harness, payout.paymentId)).toBe(1);
    await quiet(harness);
    expect(noticesAbout(harness, prompt, payout)).toHaveLength(1);
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe(row.status);
  });

  it("passes on what the payment service said about a failure, escaped", async () => {
    const harness = await start(SLOW_POLLING);
    harness.sandbox.setCallbackUrl(webhookUrl(harness));
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    // A number whose payments stay pending, until the service says otherwise.
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000003 3000");

    const notice = harness.emulator.waitForMessage((m) => isNotice(m, prompt));
    harness.sandbox.forceStatus(payout.paymentId, "failed", "Subscriber <b>balance</b>\ntoo low");
    const text = plainText(await notice);
    expect(text).toContain("The payment service said: “Subscriber <b>balance</b> too low”");
    expect(text).toContain("What to do: check the number and the name with the recipient");
    const edited = harness.emulator.message(prompt.chatId, prompt.messageId);
    expect(edited && plainText(edited)).toContain(
      "The payment service said: “Subscriber <b>balance</b> too low”",
    );
    expect((await harness.app.stores.payouts.get(payout.id))?.apiRemark).toBe(
      "Subscriber <b>balance</b> too low",
    );
  });

  it("trusts answers from a service whose clock is 10 minutes slow, refuses its stale callbacks, and settles by polling", async () => {
    const harness = await start({ STATUS_POLL_INTERVAL_MS: "300" }, 150, -10 * 60_000);
    harness.sandbox.setCallbackUrl(webhookUrl(harness));
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000");
    const notice = await harness.emulator.waitForMessage((m) => isNotice(m, prompt));

    expect(plainText(notice)).toContain("✅ Paid: 5,000 FCFA");
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe("success");
    // The callback, signed ten minutes in the past, could be a replay: refused.
    await expect.poll(() => harness.sandbox.callbackAttempts.length).toBeGreaterThan(0);
    expect(harness.sandbox.callbackAttempts[0]).toMatchObject({ outcome: 401 });
    expect(harness.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("refuses unsigned and badly signed callbacks with 401, and tells no one anything", async () => {
    const harness = await start(SLOW_POLLING);
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000003 5000");
    const before = harness.emulator.messages(PAYER_ID).length;
    const body = forgedSuccess(payout);

    const unsigned = await postCallback(harness, body);
    const otherKey = await postCallback(harness, body, signed(harness, body, strangerKey));
    const tampered = await postCallback(
      harness,
      body,
      signed(harness, body.replace('"success"', '"pending"')),
    );
    for (const answer of [unsigned, otherKey, tampered]) expect(answer.status).toBe(401);
    expect(unsigned.json).toEqual({ ok: false, error: "signature missing" });
    expect(otherKey.json).toEqual({ ok: false, error: "signature mismatch" });

    await quiet(harness);
    expect(paymentReads(harness, payout.paymentId)).toBe(0);
    expect(harness.emulator.messages(PAYER_ID)).toHaveLength(before);
    expect(noticesAbout(harness, prompt, payout)).toHaveLength(0);
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe("pending");
  });

  it("answers 400 with a clear reason to a signed callback that names no payment", async () => {
    const harness = await start(SLOW_POLLING);
    const notJson = "this is not json";
    const answer = await postCallback(harness, notJson, signed(harness, notJson));
    expect(answer).toEqual({ status: 400, json: { ok: false, error: "body is not JSON" } });

    // Only an id makes a callback usable (it names the payment to re-read); anything else
    // in it is read tolerantly, like the API's own answers.
    const noId = JSON.stringify({ status: "success", amount: 5000 });
    const wrong = await postCallback(harness, noId, signed(harness, noId));
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^not a payment: id/),
    });
  });

  it("acknowledges a callback for a payment it does not know, and does nothing else", async () => {
    const harness = await start(SLOW_POLLING);
    const body = JSON.stringify({ id: "pay_never_made_by_us", status: "success", extra: true });
    const answer = await postCallback(harness, body, signed(harness, body));
    expect(answer).toEqual({ status: 200, json: { ok: true } });
    await quiet(harness);
    expect(harness.sandbox.countRequests({ method: "GET", path: /^\/payments\// })).toBe(0);
    expect(harness.emulator.calls.filter((c) => c.method === "sendMessage")).toHaveLength(0);
  });

  it("sends one notice for a callback delivered three times", async () => {
    const harness = await start(SLOW_POLLING);
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000");
    await expect.poll(() => harness.sandbox.getPayment(payout.paymentId)?.status).toBe("success");

    const body = JSON.stringify(harness.sandbox.getPayment(payout.paymentId));
    const headers = signed(harness, body);
    const answers = await Promise.all([1, 2, 3].map(() => postCallback(harness, body, headers)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);

    await expect.poll(() => noticesAbout(harness, prompt, payout).length).toBeGreaterThan(0);
    await quiet(harness);
    expect(noticesAbout(harness, prompt, payout)).toHaveLength(1);
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe("success");
  });
});

describe("status callbacks with the signature check switched off", () => {
  it("takes a forged 'success' but settles nothing, because the API still says pending", async () => {
    const harness = await start({ ...SLOW_POLLING, PAYMENT_SIGNATURE_PUBLIC_KEY: "" });
    expect(harness.app.config.payment.signaturePublicKey).toBeUndefined();
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000003 5000");
    const before = harness.emulator.messages(PAYER_ID).length;

    const answer = await postCallback(harness, forgedSuccess(payout));
    expect(answer.status).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(300);

    await quiet(harness);
    expect(paymentReads(harness, payout.paymentId)).toBe(1);
    expect(harness.emulator.messages(PAYER_ID)).toHaveLength(before);
    expect(noticesAbout(harness, prompt, payout)).toHaveLength(0);
    const stored = await harness.app.stores.payouts.get(payout.id);
    expect(stored?.state).toBe("pending");
    expect(stored?.notifiedAtMs).toBeUndefined();
  });
});

describe("a callback and a poll arriving together", () => {
  it("notifies each payer once when the callback and the poll are due at the same moment", async () => {
    // The payment settles just as the first poll is due (both 200 ms after Confirm).
    const harness = await start({ STATUS_POLL_INTERVAL_MS: "200" }, 200);
    harness.sandbox.setCallbackUrl(webhookUrl(harness));
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const confirmed = [];
    for (const amount of [1000, 2000, 3000]) {
      const { prompt, payout } = await confirmPayout(harness, payer, `/pay 237670000001 ${amount}`);
      confirmed.push({ prompt, payout });
      await expect.poll(() => noticesAbout(harness, prompt, payout).length).toBeGreaterThan(0);
    }
    await quiet(harness);
    for (const { prompt, payout } of confirmed) {
      expect(noticesAbout(harness, prompt, payout)).toHaveLength(1);
    }
    expect(harness.sandbox.callbackAttempts.length).toBeGreaterThanOrEqual(3);
  });

  it("notifies once when callbacks and a poll tick are fired at the very same time", async () => {
    const harness = await start({ STATUS_POLL_INTERVAL_MS: "200" });
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    // 237670000003 stays pending until the test decides.
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000003 5000");
    harness.sandbox.setCallbackUrl(webhookUrl(harness));
    harness.sandbox.forceStatus(payout.paymentId, "success");
    await harness.app.stores.tracking.schedule(payout.id, Date.now());

    const body = JSON.stringify(harness.sandbox.getPayment(payout.paymentId));
    const headers = signed(harness, body);
    await Promise.all([
      postCallback(harness, body, headers),
      postCallback(harness, body, headers),
      harness.app.tracker.tick(),
      harness.app.payouts.settlement.settle(payout.id),
    ]);
    await expect.poll(() => noticesAbout(harness, prompt, payout).length).toBeGreaterThan(0);
    await quiet(harness);
    expect(noticesAbout(harness, prompt, payout)).toHaveLength(1);
    const sends = harness.emulator.calls.filter(
      (c) =>
        c.method === "sendMessage" &&
        Number(c.params.chat_id) === PAYER_ID &&
        String(c.params.text).includes("Paid"),
    );
    expect(sends).toHaveLength(1);
  });
});
